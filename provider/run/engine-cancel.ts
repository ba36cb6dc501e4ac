import { subscribe } from "node:diagnostics_channel";

// The engine's Cancel (the first Ctrl-C) as a dynamic provider process hears it. The CLI sends
// every provider it started the `Cancel` call; the SDK's dynamic provider host answers it and
// does nothing more, and no signal reaches the process (the CLI starts its plugins in process
// groups of their own, so a terminal's Ctrl-C reaches only the CLI). The call is an HTTP/2
// stream to the host's gRPC server, in this very process, and Node.js announces every stream a
// server receives on a diagnostics channel: observing it touches neither the server nor the
// SDK, installs no signal handler and keeps nothing alive, so the process exits as before.

/** The gRPC method of the engine's Cancel, as the stream's `:path` names it. */
const cancelPath = "/pulumirpc.ResourceProvider/Cancel";

/** Where Node.js announces each HTTP/2 stream a server receives. */
const serverStreams = "http2.server.stream.created";

/**
 * Whether this Node.js announces the streams a server receives: since 22.17 in the 22 line and
 * 24.2 in the 24 line (Node.js's changelogs), and in every later line.
 */
export function announcesServerStreams(version: string = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  if (major === 22) return minor >= 17;
  if (major === 24) return minor >= 2;
  return major >= 25;
}

/** Whether this process is the SDK's dynamic provider host (the engine started it). */
export function isDynamicProviderHost(script: string | undefined = process.argv[1]): boolean {
  return /[\\/]cmd[\\/]dynamic-provider(?:[\\/]index\.js)?$/.test(script ?? "");
}

/**
 * Calls `cancel` when the engine's Cancel reaches this process's gRPC server. False, having
 * done nothing, when this Node.js cannot tell (see announcesServerStreams).
 */
export function onEngineCancel(cancel: () => void): boolean {
  if (!announcesServerStreams()) return false;
  subscribe(serverStreams, (message) => {
    const headers = (message as { headers?: Record<string, unknown> } | undefined)?.headers;
    if (headers?.[":path"] === cancelPath) cancel();
  });
  return true;
}
