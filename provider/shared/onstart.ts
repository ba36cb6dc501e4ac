import { gunzipSync, gzipSync } from "node:zlib";

/** The service's limit on the onstart field, in characters. */
export const onstartLimitChars = 4048;

export type OnstartEncoding =
  | { ok: true; command: string; compressed: boolean }
  | { ok: false; originalChars: number; encodedChars: number };

/**
 * Fits an onstart script into the service's limit. A script within the limit is sent as it is;
 * a longer one is gzipped and base64-encoded into a bootstrap command that writes the original
 * back, byte for byte, to a temporary file and runs it with bash (as the service runs onstart).
 */
export function encodeOnstart(script: string): OnstartEncoding {
  if (script.length <= onstartLimitChars) return { ok: true, command: script, compressed: false };
  const payload = gzipSync(Buffer.from(script, "utf8"), { level: 9 }).toString("base64");
  const command = `f=$(mktemp) && echo ${payload} | base64 -d | gzip -dc > "$f" && bash "$f"`;
  return command.length <= onstartLimitChars
    ? { ok: true, command, compressed: true }
    : { ok: false, originalChars: script.length, encodedChars: command.length };
}

/**
 * Why the script cannot be sent (one line for a check failure, without the script), or
 * undefined when it fits.
 */
export function onstartTooLong(script: string): string | undefined {
  const encoded = encodeOnstart(script);
  if (encoded.ok) return undefined;
  return (
    `${encoded.originalChars} characters, ${encoded.encodedChars} even when gzipped and ` +
    `base64-encoded; the service takes at most ${onstartLimitChars}`
  );
}

/**
 * The script an onstart command stands for: the original of a bootstrap command that
 * `encodeOnstart` made, else the command itself.
 */
export function decodeOnstart(command: string): string {
  const match =
    /^f=\$\(mktemp\) && echo ([A-Za-z0-9+/]+={0,2}) \| base64 -d \| gzip -dc > "\$f" && bash "\$f"$/.exec(
      command,
    );
  if (match?.[1] === undefined) return command;
  try {
    const script = gunzipSync(Buffer.from(match[1], "base64")).toString("utf8");
    const again = encodeOnstart(script);
    return again.ok && again.command === command ? script : command;
  } catch {
    return command;
  }
}
