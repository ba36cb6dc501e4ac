import { buildEmulator } from "../../emulator";
import { LENIENT_ROUTES, SERVICE_ROUTES } from "../../emulator/control/service-routing";
import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { API_KEY, INSTANCE_ASK_ID, errorOf } from "./helpers";

const create = `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`;
const body = { client_id: "me", image: "pytorch/pytorch:latest", disk: 16 };

const requestLog = async (emulator: TestEmulator) =>
  (await emulator.control("GET", "/_emulator/requests")).body as {
    requests: { method: string; path: string; status: number; undocumented?: true }[];
    undocumented: number;
  };

describe("what the service documents", () => {
  let emulator: TestEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it("strict: refuses a create sent with POST as the service's router would, creating nothing", async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY, allowUndocumented: true, strict: true });
    const refused = await emulator.call("POST", create, body);
    expect(errorOf(refused)).toEqual({ status: 405, error: "method_not_allowed" });
    expect(refused.headers["allow"]).toBe("PUT");
    expect((await emulator.call("GET", "/api/v1/instances/")).body).toMatchObject({
      instances: [],
    });
    expect((await emulator.call("PUT", create, body)).status).toBe(200);
    const log = await requestLog(emulator);
    expect(log.undocumented).toBe(1);
    expect(log.requests.filter((entry) => entry.undocumented)).toEqual([
      {
        seq: 1,
        atMs: expect.any(Number) as number,
        method: "POST",
        path: create,
        status: 405,
        undocumented: true,
      },
    ]);
  });

  it("lenient (the default): takes the POST create, and marks it in the request log", async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY, allowUndocumented: true, strict: false });
    expect((await emulator.call("POST", create, body)).body).toMatchObject({ success: true });
    const log = await requestLog(emulator);
    expect(log.requests).toEqual([
      {
        seq: 1,
        atMs: expect.any(Number) as number,
        method: "POST",
        path: create,
        status: 200,
        undocumented: true,
      },
    ]);
    // Clearing the log keeps the count since start.
    await emulator.control("DELETE", "/_emulator/requests");
    expect((await requestLog(emulator)).undocumented).toBe(1);
  });

  it.each([true, false])(
    "strict %s: 405 for a path the service routes with other methods, 404 for one it lacks",
    async (strict) => {
      emulator = await startTestEmulator({ apiKey: API_KEY, allowUndocumented: true, strict });
      const wrongMethod = await emulator.call("PATCH", "/api/v0/secrets/", { key: "K" });
      expect(errorOf(wrongMethod)).toEqual({ status: 405, error: "method_not_allowed" });
      expect(String(wrongMethod.headers["allow"]).split(", ").sort()).toEqual([
        "DELETE",
        "GET",
        "HEAD",
        "POST",
        "PUT",
      ]);
      // Without its trailing slash too, as the service answers its paths.
      expect(errorOf(await emulator.call("POST", "/api/v0/instances/5"))).toEqual({
        status: 405,
        error: "method_not_allowed",
      });
      expect(errorOf(await emulator.call("GET", "/api/v0/nothing-here/"))).toEqual({
        status: 404,
        error: "not_found",
      });
      expect((await requestLog(emulator)).undocumented).toBe(3);
      expect((await emulator.call("GET", "/api/v0/secrets/")).status).toBe(200);
      expect((await requestLog(emulator)).undocumented).toBe(3);
    },
  );

  it("will not start with a route that no document gives the service and that is not listed as lenient", async () => {
    const app = buildEmulator({ apiKey: API_KEY, market: false });
    expect(() => app.get("/api/v0/made-up/", async () => ({}))).toThrow(
      "emulator route GET /api/v0/made-up/ is neither in SERVICE_ROUTES nor LENIENT_ROUTES",
    );
    expect(Object.keys(LENIENT_ROUTES)).toEqual(["POST /api/v0/asks/:id/"]);
    // And none listed that the emulator does not serve.
    const served = buildEmulator({ apiKey: API_KEY, market: false });
    await served.ready();
    const unserved = [...Object.keys(SERVICE_ROUTES), ...Object.keys(LENIENT_ROUTES)].filter(
      (route) => {
        const [method = "", url = ""] = route.split(" ");
        return !served.hasRoute({ method: method, url: url.replace(/\/$/, "") });
      },
    );
    expect(unserved).toEqual([]);
    await served.close();
    // The same route is never both.
    expect(
      Object.keys(SERVICE_ROUTES).filter((route) => Object.hasOwn(LENIENT_ROUTES, route)),
    ).toEqual([]);
  });
});
