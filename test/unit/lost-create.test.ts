import { GpuCloudError } from "../../provider/client";
import { onlyOne, recoverLostCreate } from "../../provider/shared/lost-create";
import { Cancellation } from "../../provider/run/cancellation";

// One helper recovers every resource's create whose reply was lost: the create is sent once,
// and what identifies its creation finds it; anything else is the create's own failure.

const lostReply = () =>
  new GpuCloudError(
    "POST /x/ failed: ECONNRESET",
    "POST /x/",
    undefined,
    undefined,
    undefined,
    true,
  );
const refused = () =>
  new GpuCloudError("POST /x/ failed with HTTP 400", "POST /x/", 400, "invalid_args", undefined);

describe("recoverLostCreate", () => {
  it("answers with the create's own answer, looking for nothing", async () => {
    let looks = 0;
    const made = await recoverLostCreate({
      create: async () => 7,
      findCreated: async () => {
        looks++;
        return 8;
      },
    });
    expect(made).toBe(7);
    expect(looks).toBe(0);
  });

  it("sends the create once, and rethrows a failure that created nothing", async () => {
    let sent = 0;
    const failure = refused();
    await expect(
      recoverLostCreate({
        create: async () => {
          sent++;
          throw failure;
        },
        findCreated: async () => 8,
      }),
    ).rejects.toBe(failure);
    expect(sent).toBe(1);
  });

  it("after a lost reply, answers with what identifies this create's creation", async () => {
    const made = await recoverLostCreate({
      create: async (): Promise<number> => {
        throw lostReply();
      },
      findCreated: async (lost) => {
        expect(lost.message).toMatch(/ECONNRESET/);
        return 8;
      },
    });
    expect(made).toBe(8);
  });

  it("fails with the create's own failure when nothing is found, or as told", async () => {
    const failure = lostReply();
    const create = async (): Promise<number> => {
      throw failure;
    };
    await expect(recoverLostCreate({ create, findCreated: async () => undefined })).rejects.toBe(
      failure,
    );
    await expect(
      recoverLostCreate({
        create,
        findCreated: async () => undefined,
        notFound: (lost) => new Error(`${lost.message}. Nothing of it shows.`),
      }),
    ).rejects.toThrow("POST /x/ failed: ECONNRESET. Nothing of it shows.");
  });

  it("takes a failure as possibly created when the resource says so", async () => {
    const made = await recoverLostCreate({
      create: async (): Promise<number> => {
        throw new Error("the list after the create failed");
      },
      mayHaveCreated: () => true,
      findCreated: async () => 8,
    });
    expect(made).toBe(8);
  });

  it("looks again until the creation shows, saying so once", async () => {
    const said: string[] = [];
    let looks = 0;
    const made = await recoverLostCreate({
      create: async (): Promise<number> => {
        throw lostReply();
      },
      findCreated: async () => (++looks >= 3 ? 8 : undefined),
      lookAgain: {
        announce: () => said.push("looking"),
        initialIntervalMs: 5,
        maxIntervalMs: 5,
        until: () => Date.now() + 5_000,
        signal: new Cancellation().signal,
        cancelled: () => new Error("cancelled"),
      },
    });
    expect(made).toBe(8);
    expect(looks).toBe(3);
    expect(said).toEqual(["looking"]);
  });

  it("stops looking when cancelled, with the resource's words", async () => {
    const cancellation = new Cancellation();
    const looked = recoverLostCreate({
      create: async (): Promise<number> => {
        throw lostReply();
      },
      findCreated: async () => undefined,
      lookAgain: {
        announce: () => undefined,
        initialIntervalMs: 5_000,
        maxIntervalMs: 5_000,
        until: () => Date.now() + 60_000,
        signal: cancellation.signal,
        cancelled: (lost) => new Error(`${lost.message}. Cancelled while looking.`),
      },
    });
    setTimeout(() => {
      cancellation.cancel();
    }, 50);
    await expect(looked).rejects.toThrow("POST /x/ failed: ECONNRESET. Cancelled while looking.");
  });
});

describe("onlyOne", () => {
  it("is the one item, or nothing when there are none or several", () => {
    expect(onlyOne([3])).toBe(3);
    expect(onlyOne<number>([])).toBeUndefined();
    expect(onlyOne([3, 4])).toBeUndefined();
  });
});
