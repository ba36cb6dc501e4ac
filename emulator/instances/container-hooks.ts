import type { FastifyInstance } from "fastify";
import type { EmulatorContext } from "../shared/context";
import { OnstartRunner } from "./onstart-runner";

/**
 * What lives beside the state and follows its instances after every change: their keys and
 * logs go when they go, and with `runOnstart` their onstart processes start and end as they run
 * and stop, and with `servePorts` their mapped ports are taken and let go. Closing the app ends
 * the processes and frees the ports.
 */
export function registerContainers(app: FastifyInstance, ctx: EmulatorContext): void {
  const { store, instanceKeys, logs, settings, ports, clock } = ctx;
  const runner = settings.runOnstart
    ? new OnstartRunner(store, instanceKeys, logs, clock)
    : undefined;
  store.observe((state) => {
    const living = new Set(state.instances.map((instance) => instance.id));
    instanceKeys.retain(living);
    logs.retain(living);
    // Ports first: the onstart's environment names them.
    ports?.reconcile();
    runner?.reconcile();
  });
  // The running instances of a state file run their onstart again, as after a reboot.
  ports?.reconcile();
  runner?.reconcile();
  app.addHook("onClose", async () => {
    await Promise.all([runner?.close(), ports?.close()]);
  });
}
