import type { Transport } from "../../provider/client/transport";
import { TemplatesApi } from "../../provider/client/templates";

// What the templates client returns of the service's answers: never the registry password, even
// should a service echo the stored template with it.

const password = "ghp_echoed_by_the_service";
const row = {
  id: 7,
  hash_id: "0123456789abcdef0123456789abcdef",
  name: "t",
  image: "vllm/vllm-openai",
  docker_login_user: "ci",
  docker_login_pass: password,
};

/** A transport that answers every request with `answer`, parsed by the request's schema. */
function answering(answer: unknown): Transport {
  const fake: Pick<Transport, "request"> = {
    request: async (spec) => spec.response.parse(answer),
  };
  return fake as Transport;
}

describe("the templates client drops a password the service echoes", () => {
  it("in a create's answer", async () => {
    const api = new TemplatesApi(answering({ success: true, msg: "created", template: row }));
    const saved = await api.create({ name: "t", image: "vllm/vllm-openai" });
    expect(saved).toEqual({ id: 7, hash_id: row.hash_id });
    expect(JSON.stringify(saved)).not.toContain(password);
  });

  it("in an edit's answer", async () => {
    const api = new TemplatesApi(answering({ success: true, template: row }));
    const saved = await api.edit(row.hash_id, { desc: "x" });
    expect(JSON.stringify(saved)).not.toContain(password);
  });

  it("in a search's rows", async () => {
    const api = new TemplatesApi(answering({ success: true, templates: [row] }));
    expect(JSON.stringify(await api.search())).not.toContain(password);
  });
});
