/**
 * Secrets and unknowns across the plugin's boundary. With `acceptSecrets`, the engine sends a
 * secret as `{ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value }`
 * and an unknown (at preview) as the string `04da6b54-80e4-46f7-96ec-b56ff0331ba9`. The
 * resource modules see plain values (a secret's text, the unknown string: what a dynamic
 * provider sees), and the plugin wraps again on the way out every top-level property that
 * arrived secret (or held a secret anywhere inside) and every property the schema marks
 * secret. A nested secret makes its whole top-level property secret: more secret, never less.
 */

/** The key that marks a special value (secret, asset, resource reference, output). */
export const signatureKey = "4dabf18193072939515e22adb298388d";
/** The signature of a secret. */
export const secretSignature = "1b47061264138c4ac30d75fd1eb44270";
/** The signature of an output value (sent only to providers that accept outputs). */
export const outputValueSignature = "d0e6a833031e9bbcd3f4e8bde6ca49a4";
/** What the engine sends for a value not known yet; the resource modules test for it. */
export const unknownValue = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

type Props = Record<string, unknown>;

function isObject(value: unknown): value is Props {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value with every secret inside replaced by its plaintext; `found` says whether any was. */
function unwrapValue(value: unknown): { value: unknown; secret: boolean } {
  if (Array.isArray(value)) {
    let secret = false;
    const items = value.map((item) => {
      const inner = unwrapValue(item);
      secret ||= inner.secret;
      return inner.value;
    });
    return { value: items, secret };
  }
  if (!isObject(value)) return { value, secret: false };
  const signature = value[signatureKey];
  if (signature === secretSignature) {
    return { value: unwrapValue(value["value"]).value, secret: true };
  }
  if (signature === outputValueSignature) {
    // Not sent unless the provider accepts outputs (it does not); handled all the same.
    const inner =
      "value" in value ? unwrapValue(value["value"]) : { value: unknownValue, secret: false };
    return { value: inner.value, secret: value["secret"] === true || inner.secret };
  }
  let secret = false;
  const entries = Object.entries(value).map(([key, item]) => {
    const inner = unwrapValue(item);
    secret ||= inner.secret;
    return [key, inner.value] as const;
  });
  return { value: Object.fromEntries(entries), secret };
}

/**
 * The properties with every secret replaced by its plaintext, and the names of the top-level
 * properties that held one.
 */
export function unwrapSecrets(props: Props | undefined): { props: Props; secret: Set<string> } {
  const secret = new Set<string>();
  const plain: Props = {};
  for (const [key, value] of Object.entries(props ?? {})) {
    const inner = unwrapValue(value);
    if (inner.secret) secret.add(key);
    plain[key] = inner.value;
  }
  return { props: plain, secret };
}

/** A secret as the engine reads it. */
export function secretOf(value: unknown): Props {
  return { [signatureKey]: secretSignature, value };
}

/**
 * The properties with each named top-level property wrapped as a secret. An absent or null
 * property stays as it is (nothing to hide), and so does an unknown at preview.
 */
export function wrapSecrets(props: Props, secret: Iterable<string>): Props {
  const wrapped: Props = { ...props };
  for (const key of secret) {
    const value = wrapped[key];
    if (value === undefined || value === null || value === unknownValue) continue;
    if (isObject(value) && value[signatureKey] === secretSignature) continue;
    wrapped[key] = secretOf(value);
  }
  return wrapped;
}

/** True when the value holds a secret anywhere (for tests and guards). */
export function containsSecret(value: unknown): boolean {
  return unwrapValue(value).secret;
}
