import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { Pool } from "undici";
import { z } from "zod";
import { loadUndiciPool, Transport } from "../../../provider/client/transport";
import { repoRoot } from "../../support/repo-root";

const execFileAsync = promisify(execFile);

// A fresh process (its own module cache) that loads the client's transport from dist/, as a
// provider process does, sends one request through the pool it gets, and lists undici's files.
const requestThroughLoadedPool = `
const http = require("node:http");
const { loadUndiciPool } = require("./dist/provider/client/transport.js");
const server = http.createServer((_, res) => res.setHeader("content-type", "application/json").end('{"ok":true}'));
server.listen(0, "127.0.0.1", async () => {
  const Pool = loadUndiciPool();
  const pool = new Pool("http://127.0.0.1:" + server.address().port);
  const reply = await pool.request({ path: "/", method: "GET" });
  const body = await reply.body.json();
  await pool.close();
  server.close();
  const undiciFiles = Object.keys(require.cache).filter((file) => /[\\\\/]node_modules[\\\\/]undici[\\\\/]/.test(file));
  console.log(JSON.stringify({ status: reply.statusCode, body, undiciFiles }));
});
`;

describe("loadUndiciPool", () => {
  it("gives a working pool without loading undici's index", async () => {
    const { stdout } = await execFileAsync(process.execPath, ["-e", requestThroughLoadedPool], {
      cwd: repoRoot,
    });
    const result = z
      .object({ status: z.number(), body: z.unknown(), undiciFiles: z.array(z.string()) })
      .parse(JSON.parse(stdout));
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ ok: true });
    expect(
      result.undiciFiles.some((file) =>
        /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]pool\.js$/.test(file),
      ),
    ).toBe(true);
    // Neither the index nor what only it brings (fetch, mocks, caches).
    expect(
      result.undiciFiles.filter((file) =>
        /[\\/]undici[\\/](index\.js|lib[\\/](web|mock|cache)[\\/])/.test(file),
      ),
    ).toEqual([]);
  });

  it("falls back to undici's index when the files are not where this version has them", () => {
    const loaded: string[] = [];
    const Loaded = loadUndiciPool((id) => {
      loaded.push(id);
      if (id !== "undici")
        throw Object.assign(new Error(`Cannot find module '${id}'`), { code: "MODULE_NOT_FOUND" });
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      return require("undici") as unknown;
    });
    expect(Loaded).toBe(Pool);
    expect(loaded.at(-1)).toBe("undici");
  });
});

describe("the transport's connections", () => {
  it("keeps its connections through deletes that carry a body", async () => {
    let connections = 0;
    const bodies: string[] = [];
    const server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        bodies.push(`${request.method ?? ""} ${body}`);
        response.setHeader("content-type", "application/json").end('{"success":true}');
      });
    });
    server.on("connection", () => connections++);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const transport = new Transport({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "k" });
    try {
      const response = z.object({ success: z.boolean() });
      const keys = ["A", "B", "C", "D", "E", "F"];
      for (const key of keys) {
        await transport.request({
          method: "DELETE",
          path: "/api/v0/secrets/",
          body: { key },
          response,
        });
      }
      await transport.request({ method: "GET", path: "/api/v0/secrets/", response });
      expect(bodies).toEqual([...keys.map((key) => `DELETE {"key":"${key}"}`), "GET "]);
      // The pool opens a second connection when the next request comes before the first
      // connection's turn ends (undici waits a tick to reuse one); a connection per delete
      // is what undici does unless told the server reads a DELETE's body.
      expect(connections).toBeLessThanOrEqual(2);
    } finally {
      await transport.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
