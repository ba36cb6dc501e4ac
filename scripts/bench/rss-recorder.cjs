"use strict";
// Peak-memory recorder for `npm run bench`. The bench loads it into every Node.js process a
// stack step starts (the program, the dynamic-provider plugin) with
// NODE_OPTIONS=--require <this file>. When the process ends it appends one JSON line,
// {pid, argv, maxRssKb, signal?, packages, gpucloudModules, compileCacheDir?}, to the file named
// by GPUCLOUD_RSS_LOG: `packages` names every package the process loaded from node_modules,
// `gpucloudModules` the files of pulumi-gpucloud it loaded (relative to the package), so tests
// can check that a provider process loads only what it needs; `compileCacheDir` is Node.js's
// compile cache directory, when the process enabled one.
//
// The engine stops the dynamic-provider plugin with SIGINT, which ends a Node.js process
// without an 'exit' event: the line is written from a signal listener too, which then removes
// itself and raises the signal again, so the process ends as it would have without it.
const fs = require("node:fs");
const { getCompileCacheDir } = require("node:module");

const file = process.env.GPUCLOUD_RSS_LOG;
if (file) {
  let recorded = false;
  const record = (signal) => {
    if (recorded) return;
    recorded = true;
    const packages = new Set();
    const gpucloudModules = new Set();
    for (const file of Object.keys(require.cache)) {
      const match = /^.*[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/](.*)$/.exec(file);
      if (!match) continue;
      const name = match[1].replace(/\\/g, "/");
      packages.add(name);
      if (name === "pulumi-gpucloud") gpucloudModules.add(match[2].replace(/\\/g, "/"));
    }
    const line = {
      pid: process.pid,
      argv: process.argv,
      maxRssKb: process.resourceUsage().maxRSS,
      ...(signal ? { signal } : {}),
      packages: [...packages].sort(),
      gpucloudModules: [...gpucloudModules].sort(),
      compileCacheDir: getCompileCacheDir?.(),
    };
    try {
      fs.appendFileSync(file, JSON.stringify(line) + "\n");
    } catch {
      // Measuring must never break the process it measures.
    }
  };
  process.on("exit", () => record(undefined));
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    const onSignal = () => {
      record(signal);
      process.removeListener(signal, onSignal);
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}
