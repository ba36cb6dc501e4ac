// Which offers a create rents from a search's answer: the one rule the renting engine rents by
// and the plan's prices price by, so that a figure shown at preview is the offer `up` takes
// when the market has not changed in between.

/**
 * The offer a create by query rents: the first, in the query's order (cheapest first unless the
 * query orders otherwise), that costs at most the cap.
 */
export function offerToRent<T extends { readonly dollarsPerHour: number }>(
  offers: readonly T[],
  cap: number | undefined,
): T | undefined {
  return offers.find((offer) => cap === undefined || offer.dollarsPerHour <= cap);
}

/** The offers `count` creates by one query rent, one after another (a group's ranks). */
export function offersToRent<T extends { readonly dollarsPerHour: number }>(
  offers: readonly T[],
  cap: number | undefined,
  count: number,
): T[] {
  return offers.filter((offer) => cap === undefined || offer.dollarsPerHour <= cap).slice(0, count);
}
