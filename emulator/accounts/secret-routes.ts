import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../shared/context";
import { ApiError, check } from "../shared/http";

/** Always eight: a mask as long as the value would leak its length. */
const MASK = "********";

const SecretInputSchema = z.object({ key: z.string(), value: z.string() });
const NonEmptyKeySchema = z.object({ key: z.string().min(1, "must not be empty") });
const SecretLengthSchema = z.object({ key: z.string().max(128), value: z.string().max(2048) });
const SecretCharactersSchema = z.object({
  key: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "use letters, digits and _, not starting with a digit"),
  value: z.string().regex(/^[A-Za-z0-9_.-]*$/, "use only letters, digits, _, - and ."),
});
const DeleteSecretSchema = z.object({ key: z.string().min(1) });

/** Each kind of bad input has its own code; which code an empty key gets differs by verb. */
function validSecret(body: unknown, emptyKeyCode: string) {
  const input = check(SecretInputSchema, body, "missing_input");
  check(NonEmptyKeySchema, input, emptyKeyCode);
  check(SecretLengthSchema, input, "input_too_long");
  check(SecretCharactersSchema, input, "invalid_characters");
  return { key: input.key.toUpperCase(), value: input.value };
}

export function registerSecretRoutes(app: FastifyInstance, { store, settings }: EmulatorContext) {
  const config = { category: "misc" } as const;
  const find = (key: string) => store.state.secrets.find((s) => s.key === key.toUpperCase());

  app.get("/api/v0/secrets/", { config }, async () => {
    const masked = store.state.secrets.map((s) => [s.key, s.value === "" ? null : MASK]);
    return { success: true, secrets: Object.fromEntries(masked) as Record<string, string | null> };
  });

  app.post("/api/v0/secrets/", { config }, async (request) => {
    const secret = validSecret(request.body, "missing_input");
    if (find(secret.key)) {
      throw new ApiError(400, "existing_key", `Environment variable ${secret.key} already exists.`);
    }
    if (store.state.secrets.length >= settings.maxSecrets) {
      throw new ApiError(400, "max_secrets", `At most ${settings.maxSecrets} secrets are allowed.`);
    }
    store.mutate((state) => state.secrets.push(secret));
    return { success: true, msg: `Created environment variable ${secret.key}.` };
  });

  app.put("/api/v0/secrets/", { config }, async (request) => {
    const { key, value } = validSecret(request.body, "empty_input");
    const existing = find(key);
    if (!existing) {
      throw new ApiError(400, "nonexistent_key", `Environment variable ${key} does not exist.`);
    }
    store.mutate(() => (existing.value = value));
    return { success: true, msg: `Updated environment variable ${key}.` };
  });

  app.delete("/api/v0/secrets/", { config }, async (request) => {
    const existing = find(check(DeleteSecretSchema, request.body, "missing_input").key);
    // The description answers a missing key with 400 here, as PUT does.
    if (!existing) {
      throw new ApiError(400, "nonexistent_key", "No environment variable with that key.");
    }
    store.mutate((state) => (state.secrets = state.secrets.filter((s) => s !== existing)));
    return { success: true, msg: `Deleted environment variable ${existing.key}.` };
  });
}
