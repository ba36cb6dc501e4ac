import type { FastifyInstance } from "fastify";
import type { EmulatorContext } from "../shared/context";
import { OnstartRunner } from "./onstart-runner";

/**
 * What lives beside the state and follows its instances after every change: their keys and
 * logs go when they go, and with `runOnstart` their onstart processes start and end as they run
 * and stop. Closing the app ends the processes.
 */
export function registerContainers(app: FastifyInstance, ctx: EmulatorContext): void {
  const { store, instanceKeys, logs, settings } = ctx;
  const runner = settings.runOnstart ? new OnstartRunner(store, instanceKeys, logs) : undefined;
  store.observe((state) => {
    const living = new Set(state.instances.map((instance) => instance.id));
    instanceKeys.retain(living);
    logs.retain(living);
    runner?.reconcile();
  });
  // The running instances of a state file run their onstart again, as after a reboot.
  runner?.reconcile();
  app.addHook("onClose", async () => {
    await runner?.close();
  });
}
