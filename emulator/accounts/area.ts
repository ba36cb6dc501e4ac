import type { EmulatorArea } from "../shared/emulator-area";
import { registerApiKeyRoutes } from "./api-key-routes";
import { registerSecretRoutes } from "./secret-routes";
import { registerSshRoutes } from "./ssh-key-routes";
import { registerUserRoutes } from "./user-routes";
import { registerWebhookRoutes } from "./webhook-routes";

/** The account's routes: the user, secrets, webhooks, SSH keys and API keys. */
export const area: EmulatorArea = {
  routes: [
    registerUserRoutes,
    registerSecretRoutes,
    registerWebhookRoutes,
    registerSshRoutes,
    registerApiKeyRoutes,
  ],
  documented: {
    "GET /api/v0/users/current/": "openapi",
    "GET /api/v0/secrets/": "openapi",
    "POST /api/v0/secrets/": "openapi",
    "PUT /api/v0/secrets/": "openapi",
    "DELETE /api/v0/secrets/": "openapi",
    "GET /api/v0/ssh/": "openapi",
    "POST /api/v0/ssh/": "openapi",
    "PUT /api/v0/ssh/:id/": "openapi",
    "DELETE /api/v0/ssh/:id/": "openapi",
    "GET /api/v0/instances/:id/ssh/": "openapi",
    "POST /api/v0/instances/:id/ssh/": "openapi",
    "DELETE /api/v0/instances/:id/ssh/:sshKeyId/": "openapi",
    "GET /api/v0/notification-types/": "openapi",
    "GET /api/v0/webhooks/": "openapi",
    "POST /api/v0/webhooks/": "openapi",
    "PUT /api/v0/webhooks/:id/": "openapi",
    "DELETE /api/v0/webhooks/:id/": "openapi",
    "POST /api/v0/webhooks/:id/rotate-secret/": "openapi",
    "POST /api/v0/webhooks/:id/test/": "openapi",
    "GET /api/v0/auth/apikeys/": "openapi",
    "POST /api/v0/auth/apikeys/": "openapi",
    "DELETE /api/v0/auth/apikeys/:id/": "openapi",
  },
};
