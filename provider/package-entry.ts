// The package's entry (package.json's `main`): the API of provider/index.ts, whose declarations
// it has. Where the package ships its bundled runtime and the program runs in the process's
// main context, the bundle's copy of it, compiled from its code cache (provider/dynamic-runtime.ts);
// else (the sources, a Jest test's own context) the modules'.
import { bundledRuntime, ranInBundle } from "./dynamic-runtime";

const bundle = bundledRuntime();
if (bundle !== undefined) {
  module.exports = bundle.api;
  // The classes' modules ran: the cache keeps them (and whatever else ran by its write).
  ranInBundle("api");
} else {
  // Last, as Node.js reads the names an ES module may import from the last assignment to
  // `module.exports` (a `require` of the modules' index: its names are the bundle's).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  module.exports = require("./index") as typeof import("./index");
}
