/** Splits a command line as a POSIX shell would split words: quotes group, backslash escapes. */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < text.length)
        word = (word ?? "") + text.charAt(++i);
      else word = (word ?? "") + c;
    } else if (c === '"' || c === "'") {
      quote = c;
      word ??= "";
    } else if (c === "\\" && i + 1 < text.length) {
      word = (word ?? "") + text.charAt(++i);
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/**
 * A template's Docker-flag string as instance creation's env dict: `-e K=V` (or `--env K=V`)
 * gives K: V; any other flag and its value, such as `-p 8000:8000`, gives "-p 8000:8000": "1"
 * (the dict form the service documents for ports).
 */
export function envFromDockerFlags(flags: string): Record<string, string> {
  const env: Record<string, string> = {};
  const words = shellWords(flags);
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? "";
    if (!word.startsWith("-")) continue;
    const next = words[i + 1];
    const value = next !== undefined && !next.startsWith("-") ? next : undefined;
    if (value !== undefined) i++;
    if ((word === "-e" || word === "--env") && value !== undefined) {
      const eq = value.indexOf("=");
      if (eq > 0) env[value.slice(0, eq)] = value.slice(eq + 1);
      continue;
    }
    env[value === undefined ? word : `${word} ${value}`] = "1";
  }
  return env;
}

/** What a worker group's `launch_args` (the client's create-instance options) set. */
export interface LaunchArgs {
  image?: string;
  diskGb?: number;
  env?: Record<string, string>;
  onstart?: string;
}

export function parseLaunchArgs(text: string | null): LaunchArgs {
  const words = shellWords(text ?? "");
  const args: LaunchArgs = {};
  for (let i = 0; i < words.length; i++) {
    const value = words[i + 1];
    if (value === undefined) break;
    switch (words[i]) {
      case "--image":
        args.image = value;
        break;
      case "--disk": {
        const disk = Number(value);
        if (Number.isFinite(disk)) args.diskGb = disk;
        break;
      }
      case "--env":
        args.env = { ...args.env, ...envFromDockerFlags(value) };
        break;
      case "--onstart-cmd":
        args.onstart = value;
        break;
      default:
        continue;
    }
    i++;
  }
  return args;
}
