"""The compiled shaders index their arrays of descriptors by constants only.

A batch dispatch binds an array of storage buffers on each side
(src/vulkan/shaders/walk.glsl, SLOTS). Indexing such an array by anything
but a constant needs shaderStorageBufferArrayDynamicIndexing, a device
feature dmlslice does not require (docs/vulkan.md: Vulkan 1.1 and
VK_KHR_push_descriptor), and glslang says nothing when a shader does it:
it neither refuses the shader nor declares the capability, so neither the
validation layer nor lavapipe would notice. So this reads the SPIR-V the
build embedded: every access chain into a descriptor array (a variable of
storage class UniformConstant, Uniform or StorageBuffer whose type is an
array) must take an OpConstant as its first index, and the multi-slot
shaders (*b8.spv) must reach 8 places of an array, so that the check is
not passed by finding nothing.

check_spirv_indexing.py FILE.spv...   exits 1 naming each offence.
"""
import struct
import sys

OP_TYPE_ARRAY, OP_TYPE_RUNTIME_ARRAY, OP_TYPE_POINTER = 28, 29, 32
OP_CONSTANT, OP_VARIABLE, OP_ACCESS_CHAIN, OP_IN_BOUNDS_ACCESS_CHAIN = 43, 59, 65, 66
OP_CAPABILITY = 17
DESCRIPTOR_CLASSES = {0, 2, 12}  # UniformConstant, Uniform, StorageBuffer
DYNAMIC_INDEXING_CAPS = {28, 29, 30}  # Sampled image, storage buffer, storage image array dynamic indexing


def instructions(path):
    data = open(path, "rb").read()
    words = struct.unpack("<%dI" % (len(data) // 4), data)
    if words[0] != 0x07230203:
        raise SystemExit("%s: not SPIR-V (magic 0x%08x)" % (path, words[0]))
    at = 5
    while at < len(words):
        count, op = words[at] >> 16, words[at] & 0xFFFF
        if count == 0:
            raise SystemExit("%s: an instruction of 0 words at word %d" % (path, at))
        yield op, words[at + 1 : at + count]
        at += count


def check(path):
    """The offences of one file, and the constant places reached."""
    arrays, pointers, variables, constants = set(), {}, {}, {}
    offences, places = [], set()
    for op, a in instructions(path):
        if op == OP_CAPABILITY and a[0] in DYNAMIC_INDEXING_CAPS:
            offences.append("declares dynamic indexing (capability %d)" % a[0])
        elif op in (OP_TYPE_ARRAY, OP_TYPE_RUNTIME_ARRAY):
            arrays.add(a[0])
        elif op == OP_TYPE_POINTER:
            pointers[a[0]] = (a[1], a[2])
        elif op == OP_CONSTANT:
            constants[a[1]] = a[2]
        elif op == OP_VARIABLE:
            variables[a[1]] = a[0]
        elif op in (OP_ACCESS_CHAIN, OP_IN_BOUNDS_ACCESS_CHAIN) and a[2] in variables:
            storage, pointee = pointers[variables[a[2]]]
            if storage not in DESCRIPTOR_CLASSES or pointee not in arrays:
                continue
            if a[3] not in constants:
                offences.append("access chain %%%d indexes descriptor array %%%d by %%%d, not a constant"
                                % (a[1], a[2], a[3]))
            else:
                places.add((a[2], constants[a[3]]))
    return offences, places


def main(paths):
    failed = False
    for path in paths:
        offences, places = check(path)
        most = max((sum(1 for v, _ in places if v == var) for var in {v for v, _ in places}), default=0)
        if path.endswith("b8.spv") and most < 8:
            offences.append("a multi-slot shader reaching %d places of an array, not 8" % most)
        for o in offences:
            print("%s: %s" % (path, o))
        failed |= bool(offences)
    print("%d shaders, %s" % (len(paths), "failed" if failed else "every descriptor array indexed by constants"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
