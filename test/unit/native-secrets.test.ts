import {
  containsSecret,
  outputValueSignature,
  secretOf,
  secretSignature,
  signatureKey,
  unknownValue,
  unwrapSecrets,
  wrapSecrets,
} from "../../provider/native/secrets";

describe("the native plugin's secrets", () => {
  it("unwraps top-level secrets and names them", () => {
    const { props, secret } = unwrapSecrets({ key: "A", value: secretOf("s3cret") });
    expect(props).toEqual({ key: "A", value: "s3cret" });
    expect([...secret]).toEqual(["value"]);
  });

  it("unwraps nested secrets and marks the whole top-level property", () => {
    const { props, secret } = unwrapSecrets({
      env: { PLAIN: "x", TOKEN: secretOf("t0ken") },
      list: [1, secretOf(2)],
      dockerLogin: secretOf({ repo: "r", user: "u", password: secretOf("p") }),
      image: "pytorch",
    });
    expect(props).toEqual({
      env: { PLAIN: "x", TOKEN: "t0ken" },
      list: [1, 2],
      dockerLogin: { repo: "r", user: "u", password: "p" },
      image: "pytorch",
    });
    expect([...secret].sort()).toEqual(["dockerLogin", "env", "list"]);
  });

  it("keeps unknowns as the modules expect them, and reads output values", () => {
    const { props, secret } = unwrapSecrets({
      later: unknownValue,
      output: { [signatureKey]: outputValueSignature, secret: true },
      known: { [signatureKey]: outputValueSignature, value: "v" },
    });
    expect(props).toEqual({ later: unknownValue, output: unknownValue, known: "v" });
    expect([...secret]).toEqual(["output"]);
  });

  it("wraps the named properties once, and leaves absent, null and unknown ones", () => {
    const wrapped = wrapSecrets(
      { value: "s", already: secretOf("x"), none: null, later: unknownValue, other: "o" },
      ["value", "already", "none", "later", "missing"],
    );
    expect(wrapped).toEqual({
      value: { [signatureKey]: secretSignature, value: "s" },
      already: { [signatureKey]: secretSignature, value: "x" },
      none: null,
      later: unknownValue,
      other: "o",
    });
    expect("missing" in wrapped).toBe(false);
  });

  it("round-trips: what arrived secret leaves secret", () => {
    const arrived = { key: "K", value: secretOf("v"), env: { A: secretOf("a") } };
    const { props, secret } = unwrapSecrets(arrived);
    const back = wrapSecrets(props, secret);
    expect(containsSecret(back["value"])).toBe(true);
    expect(containsSecret(back["env"])).toBe(true);
    expect(containsSecret(back["key"])).toBe(false);
    expect(unwrapSecrets(back).props).toEqual(props);
  });
});
