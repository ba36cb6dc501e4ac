// Receives the service's signed webhook deliveries and, when an instance is outbid, starts the
// reconciling CI job (a GitHub repository_dispatch event). Node.js 22 or later, no dependencies.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";

const secret = process.env.GPUCLOUD_WEBHOOK_SECRET ?? ""; // the Webhook's webhookSecret
const repository = process.env.GITHUB_REPOSITORY; // owner/name of the stack's repository
const token = process.env.GITHUB_TOKEN; // a token that may create repository_dispatch events
const port = Number(process.env.PORT ?? 8080);
// A delivery older than this is refused: a replayed one must not start a run.
const maxAgeSeconds = 300;

/** The documented signature: HMAC-SHA256 of "<timestamp>.<raw body>", keyed with the secret. */
function isSigned(headers, body) {
  const timestamp = String(headers["x-vast-timestamp"] ?? "");
  const signature = Buffer.from(String(headers["x-vast-signature-256"] ?? ""));
  const hmac = createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
  const expected = Buffer.from(`sha256=${hmac}`);
  const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) <= maxAgeSeconds;
  return (
    secret !== "" &&
    fresh &&
    signature.length === expected.length &&
    timingSafeEqual(signature, expected)
  );
}

async function startReconcile(event) {
  if (!repository || !token) {
    console.log(`outbid: instance ${event.instance_id}; set GITHUB_REPOSITORY and GITHUB_TOKEN`);
    return;
  }
  const response = await fetch(`https://api.github.com/repos/${repository}/dispatches`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, accept: "application/vnd.github+json" },
    body: JSON.stringify({
      event_type: "gpucloud-outbid",
      client_payload: { instance_id: event.instance_id },
    }),
  });
  if (!response.ok) throw new Error(`repository_dispatch answered HTTP ${response.status}`);
  console.log(`outbid: instance ${event.instance_id}; reconcile job started`);
}

createServer((request, response) => {
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    if (!isSigned(request.headers, body)) {
      response.writeHead(401).end();
      return;
    }
    // Answered at once: the job runs for minutes, the service waits seconds for an answer.
    response.writeHead(204).end();
    const event = JSON.parse(body);
    if (event.notif_type === "outbid") {
      startReconcile(event).catch((error) => console.error(`outbid: ${error.message}`));
    }
  });
}).listen(port, () => console.log(`receiving webhook deliveries on port ${port}`));
