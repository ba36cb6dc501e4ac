"use strict";
// Peak-memory recorder for `npm run bench`. The bench loads it into every Node.js process a
// stack step starts (the program, the dynamic-provider plugin) with
// NODE_OPTIONS=--require <this file>. When the process ends it appends one JSON line,
// {pid, argv, maxRssKb, signal?}, to the file named by GPUCLOUD_RSS_LOG.
//
// The engine stops the dynamic-provider plugin with SIGINT, which ends a Node.js process
// without an 'exit' event: the line is written from a signal listener too, which then removes
// itself and raises the signal again, so the process ends as it would have without it.
const fs = require("node:fs");

const file = process.env.GPUCLOUD_RSS_LOG;
if (file) {
  let recorded = false;
  const record = (signal) => {
    if (recorded) return;
    recorded = true;
    const line = {
      pid: process.pid,
      argv: process.argv,
      maxRssKb: process.resourceUsage().maxRSS,
      ...(signal ? { signal } : {}),
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
