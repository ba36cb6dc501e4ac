import type { FastifyInstance } from "fastify";
import type { EmulatorContext } from "../shared/context";

/**
 * What lives beside the state and follows its instances after every change: their keys go when
 * they go, however they go (destroyed, released, reset).
 */
export function registerContainers(_app: FastifyInstance, ctx: EmulatorContext): void {
  const { store, instanceKeys } = ctx;
  store.observe((state) => {
    instanceKeys.retain(new Set(state.instances.map((instance) => instance.id)));
  });
}
