import { z } from "zod";
import { GpuCloudError } from "./errors";
import type { Transport } from "./transport";
import { documentedBy, type ClientArea } from "./client-area";

const timestampSchema = z.union([z.string(), z.number()]).nullable().optional();

/** An account SSH key, in one shape whichever answer it came in. */
export const sshKeySchema = z.object({
  id: z.number().int(),
  publicKey: z.string(),
  createdAt: z.union([z.string(), z.number()]).nullable(),
});
export type SshKey = z.infer<typeof sshKeySchema>;

// The list names the key material `key`; the create and update answers name it `public_key`.
const listedSshKeySchema = z
  .object({ id: z.number().int(), key: z.string(), created_at: timestampSchema })
  .transform((k) => ({ id: k.id, publicKey: k.key, createdAt: k.created_at ?? null }))
  .pipe(sshKeySchema);
const answeredSshKeySchema = z
  .object({ id: z.number().int(), public_key: z.string(), created_at: timestampSchema })
  .transform((k) => ({ id: k.id, publicKey: k.public_key, createdAt: k.created_at ?? null }))
  .pipe(sshKeySchema);
const keyAnswerSchema = z.object({ success: z.boolean(), key: answeredSshKeySchema });

/** A key on an instance: `name` is the comment at the end of the public key, when it has one. */
const instanceSshKeySchema = z.object({
  id: z.number().int(),
  name: z.string().nullable().optional(),
  public_key: z.string(),
});
export type InstanceSshKey = z.infer<typeof instanceSshKeySchema>;
// The service sends the instance's keys as a JSON-encoded string.
const instanceKeysSchema = z.object({
  success: z.boolean(),
  ssh_keys: z.string().transform((text, ctx) => {
    try {
      return z.array(instanceSshKeySchema).parse(JSON.parse(text));
    } catch {
      ctx.addIssue({ code: "custom", message: "is not a JSON list of SSH keys" });
      return z.NEVER;
    }
  }),
});

const sshKeyBodySchema = z.object({ ssh_key: z.string().trim().min(1) });
const messageSchema = z.object({ success: z.boolean(), msg: z.string().optional() });

export class SshKeysApi {
  constructor(private readonly transport: Transport) {}

  /** The account's SSH keys. The description lets the service answer 404 for none: that is []. */
  async list(signal?: AbortSignal): Promise<SshKey[]> {
    try {
      return await this.transport.request({
        method: "GET",
        path: "/api/v0/ssh/",
        response: z.array(listedSshKeySchema),
        signal,
      });
    } catch (error) {
      if (error instanceof GpuCloudError && error.status === 404) return [];
      throw error;
    }
  }

  /** Registers a public key (OpenSSH one-line form); the service adds it to every instance. */
  async create(publicKey: string, signal?: AbortSignal): Promise<SshKey> {
    const body = await this.transport.request({
      method: "POST",
      path: "/api/v0/ssh/",
      body: { ssh_key: publicKey },
      bodySchema: sshKeyBodySchema,
      response: keyAnswerSchema,
      creates: true,
      signal,
    });
    return body.key;
  }

  /** Replaces a key's material in place; its id stays. */
  async update(id: number, publicKey: string, signal?: AbortSignal): Promise<SshKey> {
    const body = await this.transport.request({
      method: "PUT",
      path: `/api/v0/ssh/${id}/`,
      body: { ssh_key: publicKey },
      bodySchema: sshKeyBodySchema,
      response: keyAnswerSchema,
      signal,
    });
    return body.key;
  }

  /** An unknown id fails with 400 `no_ssh_key` (the service's answer), which `isNotFound` knows. */
  async delete(id: number, signal?: AbortSignal): Promise<void> {
    await this.transport.request({
      method: "DELETE",
      path: `/api/v0/ssh/${id}/`,
      response: messageSchema,
      signal,
    });
  }

  /** The keys that can log in to an instance. */
  async onInstance(instanceId: number, signal?: AbortSignal): Promise<InstanceSshKey[]> {
    const body = await this.transport.request({
      method: "GET",
      path: `/api/v0/instances/${instanceId}/ssh/`,
      response: instanceKeysSchema,
      signal,
    });
    return body.ssh_keys;
  }

  /** Adds a public key to one instance (attaching twice is harmless). */
  async attach(instanceId: number, publicKey: string, signal?: AbortSignal): Promise<void> {
    await this.transport.request({
      method: "POST",
      path: `/api/v0/instances/${instanceId}/ssh/`,
      body: { ssh_key: publicKey },
      bodySchema: sshKeyBodySchema,
      response: messageSchema,
      signal,
    });
  }

  async detach(instanceId: number, sshKeyId: number, signal?: AbortSignal): Promise<void> {
    await this.transport.request({
      method: "DELETE",
      path: `/api/v0/instances/${instanceId}/ssh/${sshKeyId}/`,
      response: messageSchema,
      signal,
    });
  }
}

export const area: ClientArea = {
  property: "sshKeys",
  Api: SshKeysApi,
  documents: {
    "GET /api/v0/instances/{id}/ssh/": { by: documentedBy.openApi },
    "POST /api/v0/instances/{id}/ssh/": { by: documentedBy.all, body: ["ssh_key"] },
    "DELETE /api/v0/instances/{id}/ssh/{ssh_key_id}/": { by: documentedBy.all },
    "GET /api/v0/ssh/": { by: documentedBy.all },
    "POST /api/v0/ssh/": { by: documentedBy.all, body: ["ssh_key"] },
    "DELETE /api/v0/ssh/{id}/": { by: documentedBy.all },
    "PUT /api/v0/ssh/{id}/": { by: documentedBy.all, body: ["id", "ssh_key"] },
  },
};
