import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import type { EmulatorSettings } from "../options";
import { type State, StateSchema, initialState } from "./state";

function loadState(file: string): State | undefined {
  if (!fs.existsSync(file)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    // JSON.parse's message quotes the file, which holds secret values.
    throw new Error(`Emulator state file ${file} is not valid JSON; delete it to start afresh.`);
  }
  const result = StateSchema.safeParse(json);
  if (!result.success) {
    throw new Error(
      `Emulator state file ${file} is not valid emulator state; delete it to start afresh.\n` +
        z.prettifyError(result.error),
    );
  }
  return result.data;
}

/** A crash mid-write must leave the previous state, so write a sibling and rename it over. */
function writeAtomically(file: string, text: string): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomUUID()}.tmp`);
  try {
    const fd = fs.openSync(temp, "w", 0o600);
    try {
      fs.writeSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

export class Store {
  private readonly observers: ((state: State) => void)[] = [];
  private readonly settlers: ((state: State) => void)[] = [];

  private constructor(
    public readonly state: State,
    private readonly file: string | undefined,
  ) {}

  static open(settings: EmulatorSettings): Store {
    const file = settings.stateFile === undefined ? undefined : path.resolve(settings.stateFile);
    const state = (file === undefined ? undefined : loadState(file)) ?? initialState(settings);
    if (settings.volumeAsks) state.volumeAsks = structuredClone(settings.volumeAsks);
    if (settings.instanceAsks) state.instanceAsks = structuredClone(settings.instanceAsks);
    if (settings.networkVolumeAsks) {
      state.networkVolumeAsks = structuredClone(settings.networkVolumeAsks);
    }
    const store = new Store(state, file);
    store.save();
    return store;
  }

  /** Every change goes through here so that none escapes the state file (nor the observers). */
  mutate<T>(change: (state: State) => T): T {
    const result = change(this.state);
    for (const settle of this.settlers) settle(this.state);
    this.save();
    for (const observer of this.observers) observer(this.state);
    return result;
  }

  /**
   * Called after every change, for what lives beside the state and must follow it (instances'
   * keys and processes); an observer must not change the state itself.
   */
  observe(observer: (state: State) => void): void {
    this.observers.push(observer);
  }

  /**
   * Called within every change, after it and before the state is written: for records the
   * state keeps in step with every change (the bills' meters). A settler changes the state.
   */
  settle(settler: (state: State) => void): void {
    this.settlers.push(settler);
  }

  private save(): void {
    if (this.file !== undefined) writeAtomically(this.file, JSON.stringify(this.state, null, 2));
  }
}
