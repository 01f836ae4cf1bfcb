#!/bin/sh
# A build without CMake: the compiler and pkg-config alone (set
# PKG_CONFIG_PATH to PREFIX/lib/pkgconfig for a prefix of your own).
#   build.sh shared OUT   links libdmlslice.so, found at run time through
#                         an RPATH to pkg-config's libdir
#   build.sh static OUT   links libdmlslice.a and what it needs
#                         (dmlslice-static.pc)
set -eu
here=$(dirname "$0")
cc=${CC:-cc}
libdir=$(pkg-config --variable=libdir dmlslice)
case "$1" in
shared) $cc -o "$2" "$here/../app.c" $(pkg-config --cflags --libs dmlslice) -Wl,-rpath,"$libdir" ;;
static) $cc -o "$2" "$here/../app.c" $(pkg-config --cflags --libs dmlslice-static) ;;
*) echo "usage: build.sh shared|static OUT" >&2; exit 2 ;;
esac
