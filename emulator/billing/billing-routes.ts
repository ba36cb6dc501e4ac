import type { FastifyInstance } from "fastify";
import type { EmulatorContext } from "../shared/context";
import { chargesPage, MissingRange, parseChargesQuery } from "./charges";
import { INVALID_RANGE, invoicesPage, parseInvoicesQuery } from "./invoices";

/**
 * The account's bills: charges per contract and invoices, read with a `billing_read` key (the
 * service's route-to-scope list, which the official client's repository publishes).
 */
export function registerBillingRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { store, clock } = ctx;
  const read = { category: "billing_read" } as const;

  app.get("/api/v0/charges/", { config: read }, async (request, reply) => {
    let query;
    try {
      query = parseChargesQuery(request.query as Record<string, unknown>);
    } catch (error) {
      if (error instanceof MissingRange) return reply.code(400).send(error.body);
      throw error;
    }
    // Reading the bill settles the meters now (a boot may have reached its outcome meanwhile).
    store.mutate(() => undefined);
    return chargesPage(store.state, clock.nowMs(), query);
  });

  app.get("/api/v1/invoices/", { config: read }, async (request) => {
    const query = parseInvoicesQuery(request.query as Record<string, unknown>);
    if (query === undefined) return INVALID_RANGE;
    return invoicesPage(store.state, query);
  });
}
