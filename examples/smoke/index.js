// The smallest Pulumi program with a dynamic resource: proves the offline toolchain works.
const pulumi = require("@pulumi/pulumi");

const provider = {
  async create(inputs) {
    return { id: "note-1", outs: inputs };
  },
};
const note = new pulumi.dynamic.Resource(provider, "note", { text: "hello from pulumi" });
exports.text = note.text;
