import { readResult } from "../../provider/shared/read-result";

describe("a read's answer", () => {
  const outs = { volumeId: 7, sizeGb: 20, machineId: null };

  it("leaves the inputs out when the outputs are as recorded (the engine keeps its own)", () => {
    // The SDK hands over the recorded outputs with its serialized provider.
    const recorded = { ...outs, __provider: "exports.handler = …" } as typeof outs;
    expect(readResult("V.7", recorded, { ...outs }, { sizeGb: 20 })).toEqual({
      id: "V.7",
      props: outs,
    });
  });

  it("leaves them out when the outputs built from the recorded ones carry its provider too", () => {
    const recorded = { ...outs, __provider: "exports.handler = …" } as typeof outs;
    expect(readResult("V.7", recorded, { ...recorded }, { sizeGb: 20 })).toEqual({
      id: "V.7",
      props: recorded,
    });
  });

  it.each([
    ["a changed value", { ...outs, sizeGb: 40 }],
    ["an output gone", { volumeId: 7, sizeGb: 20 }],
    ["a new output", { ...outs, label: "x" }],
  ])("gives the inputs on %s", (_case, found) => {
    expect(readResult("V.7", outs, found, { sizeGb: found.sizeGb })).toEqual({
      id: "V.7",
      props: found,
      inputs: { sizeGb: found.sizeGb },
    });
  });

  it("gives the inputs when nothing was recorded", () => {
    expect(readResult("V.7", undefined, outs, { sizeGb: 20 })).toEqual({
      id: "V.7",
      props: outs,
      inputs: { sizeGb: 20 },
    });
  });
});
