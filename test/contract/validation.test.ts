import { clientFor, closeTestConnections } from "../support/clients";
import { failureOf, type FakeServer, type Handler, sendJson, startFakeServer } from "./harness";

/** Responses the emulator never gives, from a tiny server that answers every request alike. */
describe("response validation", () => {
  let server: FakeServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  afterAll(async () => {
    await closeTestConnections();
  });

  async function clientAnswering(handler: Handler) {
    server = await startFakeServer(handler);
    return {
      client: clientFor(server.url, "fake-key"),
      received: server.received,
      url: server.url,
    };
  }

  it("rejects a secrets list whose value is not a masked string, naming the field", async () => {
    const { client, received } = await clientAnswering((_request, _body, response) => {
      sendJson(response, 200, { secrets: { A: 5 }, success: true });
    });

    const error = await failureOf(client.secrets.list());

    expect(error.message).toContain("secrets.A");
    expect(error.message).toMatch(/^GET \/api\/v0\/secrets\/ returned an unexpected response: /);
    expect(error).toMatchObject({ status: 200, endpoint: "GET /api/v0/secrets/" });
    // A malformed answer is not retried: asking again would get the same.
    expect(received).toEqual(["GET /api/v0/secrets/"]);
  });

  it("rejects a volume name that is not V.<number>", async () => {
    const { client } = await clientAnswering((_request, _body, response) => {
      sendJson(response, 200, { success: true, volume_name: "vol-17" });
    });

    const error = await failureOf(client.volumes.acceptVolumeAsk(21001, 10));

    expect(error.message).toContain("volume_name");
    expect(error.message).toContain("V.<number>");
  });

  it("rejects a create-instance answer without new_contract", async () => {
    const { client } = await clientAnswering((_request, _body, response) => {
      sendJson(response, 200, { success: true, id: 5 });
    });

    const error = await failureOf(client.instances.create(31001, { image: "x", disk: 10 }));

    expect(error.message).toContain("new_contract");
  });

  it("rejects a body that is not JSON", async () => {
    const { client } = await clientAnswering((_request, _body, response) => {
      response.writeHead(200, { "content-type": "text/html" });
      response.end("<html>maintenance</html>");
    });

    const error = await failureOf(client.users.current());

    expect(error.message).toMatch(
      /^GET \/api\/v0\/users\/current\/ returned an unexpected response/,
    );
  });

  it("reports a plain-text error body as the service's message", async () => {
    const { client } = await clientAnswering((_request, _body, response) => {
      response.writeHead(418, { "content-type": "text/plain" });
      response.end("I am a teapot");
    });

    const error = await failureOf(client.webhooks.list());

    expect(error).toMatchObject({ status: 418, code: undefined, serviceMessage: "I am a teapot" });
    expect(error.message).toBe("GET /api/v0/webhooks/ failed with HTTP 418 (I am a teapot)");
  });

  it("honours a base URL with a path prefix", async () => {
    const { url, received } = await clientAnswering((_request, _body, response) => {
      sendJson(response, 200, { success: true, webhooks: [] });
    });
    const prefixed = clientFor(`${url}/proxy/`, "fake-key");

    expect(await prefixed.webhooks.list()).toEqual([]);
    expect(received).toEqual(["GET /proxy/api/v0/webhooks/"]);
  });
});
