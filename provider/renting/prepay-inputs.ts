import { z } from "zod";

// `prepayDollars`: a reserved instance. The service discounts an on-demand instance whose
// account deposits credit into it (PUT /api/v0/instances/prepay/{id}/), by how many months the
// deposit covers (pricing/prepay-discount.ts). The deposit is made once the instance runs
// (prepay.ts); check, diff and update are there too.

export const prepayDollarsSchema = z
  .number({ error: "prepayDollars must be a number of dollars" })
  .positive("prepayDollars must be more than 0 dollars")
  .describe(
    "Dollars of the account's credit to prepay into the instance once it runs, which makes it " +
      "a reserved instance: the service discounts its price by how many months the deposit " +
      "covers (by default 20% for 1 month, 30% for 3, 40% for 6, up to the host's maximum; " +
      "the preview prices it so, and `dollarsPerHour` records the service's discounted " +
      "price). On-demand only (not with `price`); the account's credit must hold it. A higher " +
      "amount prepays the difference in place (the service recalculates the discount over the " +
      "whole deposit left); a lower one, or none, changes nothing: a deposit is never " +
      "withdrawn (destroying the instance refunds only the deposit left less the discount " +
      "received, per the service). A replacement is prepaid anew.",
  )
  .optional();

export const prepaidDollarsSchema = z
  .number()
  .describe(
    "With `prepayDollars`: the dollars prepaid into this instance so far (the highest " +
      "`prepayDollars` it has had). Absent before any prepay.",
  )
  .optional();
