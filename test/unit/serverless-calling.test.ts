import { resolveConfig } from "../../provider/run/config";
import { routeUrlOf } from "../../provider/serverless/calling";

// Where an Endpoint's route call goes: `gpucloud:serverlessUrl` (the service answers `route` at
// an address of its own), else `gpucloud:baseUrl`, plus /route/.

const source = (values: Record<string, string>) => ({ get: (key: string) => values[key] });
const base = { "gpucloud:apiKey": "k", "gpucloud:baseUrl": "http://127.0.0.1:4000" };

describe("an endpoint's route URL", () => {
  it("is /route/ on the address, whatever its trailing slash or path", () => {
    expect(routeUrlOf("https://serverless.example")).toBe("https://serverless.example/route/");
    expect(routeUrlOf("https://serverless.example/")).toBe("https://serverless.example/route/");
    expect(routeUrlOf("http://127.0.0.1:4000/prefix")).toBe("http://127.0.0.1:4000/prefix/route/");
  });

  it("leaves out a user and password the address holds: the output is no secret", () => {
    expect(routeUrlOf("https://me:pw-s3cret@serverless.example/")).toBe(
      "https://serverless.example/route/",
    );
  });

  it("comes from gpucloud:serverlessUrl, else GPUCLOUD_SERVERLESS_URL, else nothing (baseUrl)", () => {
    expect(resolveConfig(source(base), {}).serverlessUrl).toBeUndefined();
    expect(
      resolveConfig(source({ ...base, "gpucloud:serverlessUrl": "https://run.example" }), {})
        .serverlessUrl,
    ).toBe("https://run.example");
    expect(
      resolveConfig(source(base), { GPUCLOUD_SERVERLESS_URL: "https://env.example" }).serverlessUrl,
    ).toBe("https://env.example");
  });

  it("refuses an address that is not http(s), in one line that does not echo it", () => {
    const bad = () =>
      resolveConfig(source({ ...base, "gpucloud:serverlessUrl": "ftp://user:secret@host" }), {});
    expect(bad).toThrow(
      "gpucloud:serverlessUrl must be an http:// or https:// URL: the address the service " +
        "answers serverless route calls (POST /route/) at; unset it to use gpucloud:baseUrl; " +
        "received a ftp: URL",
    );
    expect(bad).not.toThrow(/secret/);
  });
});
