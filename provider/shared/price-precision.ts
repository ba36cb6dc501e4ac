// Prices as the service writes them: six decimals (its OpenAPI's examples, `dph_total:
// 0.234567`). A price the program reads (`dollarsPerHour` outputs) is kept to that precision, so
// that a sum of node prices or a float's noise never shows as `0.36199999999999993`.

const decimals = 1e6;

/** `price` rounded to the service's precision; null stays null. */
export function atServicePrecision(price: number): number;
export function atServicePrecision(price: number | null): number | null;
export function atServicePrecision(price: number | null): number | null {
  return price === null ? null : Math.round(price * decimals) / decimals;
}
