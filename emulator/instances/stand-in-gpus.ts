import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Instance } from "./instance-state";

/**
 * `--run-onstart`: the GPUs an onstart sees. This machine has none of the instance's, so each
 * instance gets a directory first on its onstart's PATH holding a stand-in `nvidia-smi` that
 * reports the utilization a test set (`PUT /_emulator/instances/{id}/gpu-utilization`), 0% on
 * every GPU until then. It answers what a watchdog asks (`--query-gpu=utilization.gpu` in CSV,
 * with or without header and units) and `-L` (the GPUs, one a line); anything else fails, as
 * an unknown option does. The utilization lives in memory, and goes with the instance.
 */
export class StandInGpus {
  readonly #percents = new Map<number, readonly number[]>();
  readonly #directories = new Map<number, string>();

  /** The directory holding the instance's `nvidia-smi`, made on first use. */
  binFor(instance: Instance): string {
    const existing = this.#directories.get(instance.id);
    if (existing !== undefined) return existing;
    const directory = fs.mkdtempSync(
      path.join(os.tmpdir(), `gpucloud-emulator-gpus.${String(instance.id)}-`),
    );
    this.#directories.set(instance.id, directory);
    this.#write(directory, this.percentsOf(instance));
    const script = standInScript(path.join(directory, "utilization"), instance.offer.gpuName);
    fs.writeFileSync(path.join(directory, "nvidia-smi"), script, { mode: 0o755 });
    return directory;
  }

  /** The utilization of each of the instance's GPUs, in percent. */
  percentsOf(instance: Instance): readonly number[] {
    return (
      this.#percents.get(instance.id) ?? Array.from({ length: instance.offer.numGpus }, () => 0)
    );
  }

  /** Sets the utilization of each GPU; its stand-in reports it from its next call. */
  set(instanceId: number, percents: readonly number[]): void {
    this.#percents.set(instanceId, percents);
    const directory = this.#directories.get(instanceId);
    if (directory !== undefined) this.#write(directory, percents);
  }

  /** Forgets the instances that are gone, and removes their directories. */
  retain(living: ReadonlySet<number>): void {
    for (const instanceId of this.#percents.keys()) {
      if (!living.has(instanceId)) this.#percents.delete(instanceId);
    }
    for (const [instanceId, directory] of this.#directories) {
      if (living.has(instanceId)) continue;
      this.#directories.delete(instanceId);
      fs.rmSync(directory, { recursive: true, force: true });
    }
  }

  close(): void {
    this.retain(new Set());
  }

  #write(directory: string, percents: readonly number[]): void {
    // Written whole and renamed, so that a call never reads half a file.
    const file = path.join(directory, "utilization");
    fs.writeFileSync(`${file}.new`, percents.map((percent) => `${String(percent)}\n`).join(""));
    fs.renameSync(`${file}.new`, file);
  }
}

/** The stand-in's sh: reads the utilization file at each call. */
function standInScript(file: string, gpuName: string): string {
  const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  return [
    "#!/bin/sh",
    "# The gpucloud emulator's stand-in for nvidia-smi (emulator/instances/stand-in-gpus.ts).",
    `f=${quoted(file)}`,
    'case " $* " in',
    '*" -L "*) i=0;while read -r p;do echo "GPU $i: "' +
      `${quoted(gpuName)}" (the emulator's stand-in)";i=$((i+1));done<"$f";exit 0;;`,
    '*" --query-gpu=utilization.gpu "*) ;;',
    '*) echo "nvidia-smi (the emulator\'s stand-in): only -L and --query-gpu=utilization.gpu" >&2;exit 2;;',
    "esac",
    'case " $* " in',
    '*" --format=csv,noheader,nounits "*) exec cat "$f";;',
    '*" --format=csv,noheader "*) ;;',
    '*" --format=csv "*) echo "utilization.gpu [%]";;',
    '*) echo "nvidia-smi (the emulator\'s stand-in): give --format=csv" >&2;exit 2;;',
    "esac",
    'while read -r p;do echo "$p %";done<"$f"',
    "",
  ].join("\n");
}
