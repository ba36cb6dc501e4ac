import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { repoRoot } from "./repo-root";

/**
 * The folder holding the native plugin `pulumi-resource-gpucloud`, as an installed package puts
 * it: node_modules/.bin of the repository, linked by scripts/install-package.mjs (which the
 * e2e run's global setup runs) to the installed copy. A program's `plugins.providers[].path`.
 */
export const nativePluginDir = path.join(repoRoot, "node_modules", ".bin");

/** A YAML program (`runtime: yaml`), run by the YAML language host that setup puts beside the CLI. */
export interface YamlProgram {
  readonly language: "yaml";
  /** The text of its `Pulumi.yaml`, or a directory to copy. */
  readonly program: { readonly text: string } | { readonly dir: string };
}

/** A Go program: a directory holding Pulumi.yaml (`runtime: go`) and the module, to copy. */
export interface GoProgram {
  readonly language: "go";
  readonly program: { readonly dir: string };
}

/** Writes `text` as the program's Pulumi.yaml; returns how to rewrite it. */
export async function setUpYamlText(
  workDir: string,
  text: string,
): Promise<(source: string) => Promise<void>> {
  const setProgram = (source: string) => writeFile(path.join(workDir, "Pulumi.yaml"), source);
  await setProgram(text);
  return setProgram;
}

/**
 * PATH without the folders holding one of the plugins (`pulumi-resource-<name>`, such as the
 * repository's node_modules/.bin): the CLI prefers a plugin it finds on PATH to an installed one.
 */
export function withoutPlugins(searchPath: string, names: readonly string[]): string {
  return searchPath
    .split(path.delimiter)
    .filter(
      (dir) =>
        dir !== "" && !names.some((name) => existsSync(path.join(dir, `pulumi-resource-${name}`))),
    )
    .join(path.delimiter);
}
