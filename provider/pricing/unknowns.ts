import type { Estimate } from "../run/plan-ledger";
import { containsUnknown } from "../shared/validation";

// Inputs a price rests on that are not known at preview: another resource's outputs, made by
// the same `up`. Where a range can still be given (an instance's query, wherever it will be
// placed), its resource says so; where none can (an ask id, a size), the price is unbounded:
// the line says which input it waits for, and a stack with a cap cannot pass its preview.

/** The fields of `news`, among `fields`, that hold an unknown value. */
export function unknownInputs(news: Record<string, unknown>, fields: readonly string[]): string[] {
  return fields.filter((field) => containsUnknown(news[field]));
}

/** "askId is another resource's output", as an unbounded estimate. */
export function notKnownAtPreview(fields: readonly string[]): Estimate {
  const what = `${fields.join(", ")} ${fields.length === 1 ? "is" : "are"}`;
  return {
    dollarsPerHour: 0,
    basis: `priced once ${fields.join(", ")} ${fields.length === 1 ? "is" : "are"} known`,
    unbounded: `${what} another resource's output`,
  };
}

/**
 * The estimate, or "not priced" when it cannot be made (a search failed, the configuration is
 * missing: every check reports that already): a price that cannot be read fails no check and no
 * diff; create decides.
 */
export async function estimateOrNone(estimate: () => Promise<Estimate>): Promise<Estimate> {
  try {
    return await estimate();
  } catch {
    return { dollarsPerHour: 0, basis: "not priced: the service's offers could not be read" };
  }
}
