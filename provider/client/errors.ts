/**
 * Codes with which the service says, in a 400, that the thing named does not exist: deleting a
 * missing secret (`nonexistent_key`) or SSH key (`no_ssh_key`).
 */
const notFoundCodes: ReadonlySet<string> = new Set(["nonexistent_key", "no_ssh_key"]);

/**
 * The one error type of the client. It carries what the service said (HTTP status, its short
 * `error` code and its `msg`) and the endpoint, never the API key or a request body.
 */
export class GpuCloudError extends Error {
  override readonly name = "GpuCloudError";

  constructor(
    message: string,
    /** `METHOD /path/` of the request, without query values. */
    readonly endpoint: string,
    /** HTTP status; undefined when no response arrived. */
    readonly status: number | undefined,
    /** The service's short error code (`error` field), when it sent one. */
    readonly code: string | undefined,
    /** The service's human-readable text (`msg` or `detail`), when it sent one. */
    readonly serviceMessage: string | undefined,
    /**
     * True when a request that creates something may have reached the server although no
     * success was seen: the thing may exist and must be looked for, not created again.
     */
    readonly mayHaveCreated = false,
    /**
     * Why no answer arrived, when none did: the connection never opened, the attempt timed
     * out, or the connection broke. Undefined when the service answered.
     */
    readonly network?: "not-connected" | "timed-out" | "interrupted",
  ) {
    super(message);
  }

  /** True for 401 and 403: a wrong, revoked or under-scoped key. */
  get isAuthError(): boolean {
    return this.status === 401 || this.status === 403;
  }

  /** True when the service says the thing does not exist. */
  get isNotFound(): boolean {
    if (this.status === 404) return true;
    return this.status === 400 && this.code !== undefined && notFoundCodes.has(this.code);
  }
}

/** The message for 401/403: what is wrong with the key, naming the endpoint, never the key. */
export function authErrorMessage(status: number, endpoint: string): string {
  const setKey =
    "Set a valid key with `pulumi config set --secret gpucloud:apiKey <key>` or GPUCLOUD_API_KEY.";
  return status === 401
    ? `The gpucloud API key was refused (401) on ${endpoint}: it is wrong or has been revoked. ${setKey}`
    : `The gpucloud API key was refused (403) on ${endpoint}: it lacks the permission for this ` +
        `endpoint's category (use a full-access key or widen its scope), or it is wrong or ` +
        `revoked. ${setKey}`;
}

/**
 * Runs a delete, treating "it does not exist" (404) as done: deleting what is already gone
 * succeeds, which makes a retried or repeated delete safe.
 */
export async function deleteUnlessGone(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if (error instanceof GpuCloudError && error.isNotFound) return;
    throw error;
  }
}
