import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../shared/context";
import { check, pathId } from "../shared/http";
import { deposit, prepayProblem } from "./prepay";

// The official client sends the amount as a float (`vastai prepay instance ID AMOUNT`).
const PrepaySchema = z.object({
  amount: z.number("must be a number of dollars").positive("must be more than 0 dollars"),
});

/**
 * PUT /api/v0/instances/prepay/{id}/ as the OpenAPI describes it and the official client sends
 * it: credit deposited into an on-demand instance, for a discount (prepay.ts). The account's
 * credit pays it at once (a `reserved` invoice of the `instance_prepay` service, as the
 * official client's invoice filter names it); an amount over the credit is refused with the
 * documented 411. The OpenAPI's refusals carry `success: false` and a `msg`, without an error
 * code.
 */
export function registerPrepayRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { store, clock } = ctx;

  app.put(
    "/api/v0/instances/prepay/:id/",
    { config: { category: "instance_write" } },
    async (request, reply) => {
      const id = pathId(request.params);
      const instance = store.state.instances.find((i) => i.id === id);
      if (id === undefined || !instance) {
        return reply.code(400).send({ success: false, msg: "No such instance" });
      }
      const { amount } = check(PrepaySchema, request.body, "invalid_args");
      const problem = prepayProblem(instance);
      if (problem !== undefined) return reply.code(400).send({ success: false, msg: problem });
      if (amount > store.state.user.creditDollars) {
        return reply.code(411).send({ success: false, msg: "Insufficient credit" });
      }
      const nowMs = clock.nowMs();
      const prepay = store.mutate((state) => {
        state.user.creditDollars -= amount;
        state.invoices.push({
          id: state.nextIds.invoice++,
          type: "reserved",
          service: "instance_prepay",
          source: "credit",
          description: `Prepaid credit for instance ${String(instance.id)}`,
          amountDollars: -amount,
          createdAtMs: nowMs,
          paidAtMs: nowMs,
        });
        return deposit(instance, amount, nowMs);
      });
      return { success: true, timescale: prepay.months, discount_rate: prepay.discountRate };
    },
  );
}
