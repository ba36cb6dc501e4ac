import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../shared/context";
import { ApiError, check, pathId } from "../shared/http";
import { bidProblem, changeBid, winningBid } from "./bids";

const BidSchema = z.object({
  client_id: z.string().nullish(),
  /** $/hour; null (the official client without --price) asks for a winning bid. */
  price: z.number("must be a number of $/hour").nullish(),
});

export function registerBidRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { store, settings, clock } = ctx;

  app.put(
    "/api/v0/instances/bid_price/:id/",
    { config: { category: "instance_write" } },
    async (request) => {
      const id = pathId(request.params);
      if (id === undefined) throw new ApiError(400, "invalid_args", "invalid instance_id");
      const instance = store.state.instances.find((i) => i.id === id);
      if (!instance) {
        throw new ApiError(404, "no_such_instance", "Instance with that ID does not exist.");
      }
      const input = check(BidSchema, request.body, "invalid_args");
      if (instance.bidDollarsPerHour === null) {
        throw new ApiError(
          400,
          "invalid_args",
          "Instance is on-demand, not interruptible: it has no bid to change.",
        );
      }
      const price = input.price ?? winningBid(instance);
      const problem = bidProblem(price);
      if (problem !== undefined) throw new ApiError(400, "invalid_args", problem);
      store.mutate(() => {
        changeBid(instance, price, settings, clock.nowMs());
      });
      return { success: true };
    },
  );
}
