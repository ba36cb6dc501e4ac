import type { FastifyInstance } from "fastify";
import type { EmulatorContext } from "../shared/context";
import { OnstartRunner } from "./onstart-runner";

/**
 * What lives beside the state and follows its instances after every change: their keys and
 * logs go when they go, and with `runOnstart` their onstart processes start and end as they run
 * and stop (finding their stand-in GPUs' nvidia-smi), and with `servePorts` their mapped ports are taken and let go. Closing the app ends
 * the processes and frees the ports.
 */
export function registerContainers(app: FastifyInstance, ctx: EmulatorContext): void {
  const { store, instanceKeys, logs, settings, ports, clock, gpus } = ctx;
  const runner = settings.runOnstart
    ? new OnstartRunner(store, instanceKeys, logs, clock, gpus)
    : undefined;
  store.observe((state) => {
    const living = new Set(state.instances.map((instance) => instance.id));
    instanceKeys.retain(living);
    logs.retain(living);
    gpus?.retain(living);
    // Ports first: the onstart's environment names them.
    ports?.reconcile();
    runner?.reconcile();
  });
  // The running instances of a state file run their onstart again, as after a reboot.
  ports?.reconcile();
  runner?.reconcile();
  app.addHook("onClose", async () => {
    await Promise.all([runner?.close(), ports?.close()]);
    gpus?.close();
  });
}
