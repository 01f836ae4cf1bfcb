// Put before the threaded build's glue (--extern-pre-js, scripts/build-wasm.sh):
// emscripten 3.1.6's Node code for pthreads calls require() and reads
// __dirname, which an ES module lacks; under Node they are made here, and
// elsewhere (browsers, bundlers) they stay undefined and unused.
const {require, __filename, __dirname} = typeof process === 'object' && process.versions?.node
  ? await Promise.all([import('node:module'), import('node:url'), import('node:path')]).then(([m, url, path]) => {
      const file = url.fileURLToPath(import.meta.url);
      return {require: m.createRequire(import.meta.url), __filename: file, __dirname: path.dirname(file)};
    })
  : {};
