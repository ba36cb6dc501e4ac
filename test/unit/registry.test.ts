import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { resourceModules } from "../../provider/registry";
import type { ResourceDescriptor } from "../../provider/shared/resource-descriptor";
import { emulatorAreas, resourceModuleNames } from "../../scripts/gen-registry";
import { clientAreasFile, registryFiles } from "../../scripts/gen-registry/files";
import type { ClientArea } from "../../provider/client/client-area";
import * as gpucloud from "../../provider";
import { areas } from "../../emulator/areas";
import { LENIENT_ROUTES, SERVICE_ROUTES } from "../../emulator/control/service-routing";

// The registry (provider/registry.ts), the package's resource exports (provider/classes.ts) and
// the dynamic entries (provider/dynamic/) are what `npm run gen-registry` writes from the
// resource modules: a module added or removed without regenerating fails here.
const root = path.resolve(__dirname, "..", "..");

describe("the registry of resources", () => {
  const names = resourceModuleNames(root);
  const modules = names.map((name) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const exports = require(`../../provider/resources/${name}`) as {
      descriptor?: ResourceDescriptor;
    };
    if (exports.descriptor === undefined) throw new Error(`${name} exports no descriptor`);
    return { name, descriptor: exports.descriptor };
  });
  const files = registryFiles(modules, emulatorAreas(root));

  it("lists every resource module, and is what gen-registry writes (npm run gen-registry)", () => {
    expect(names).toEqual(expect.arrayContaining(["secret", "instance", "instance-sweeper"]));
    expect(resourceModules.map(({ name }) => name)).toEqual(names);
    const stale = [...files]
      .filter(([file, text]) => {
        try {
          return readFileSync(path.join(root, file), "utf8") !== text;
        } catch {
          return true;
        }
      })
      .map(([file]) => file);
    expect(stale).toEqual([]);
    const entries = readdirSync(path.join(root, "provider", "dynamic")).map(
      (file) => `provider/dynamic/${file}`,
    );
    expect(entries.filter((file) => !files.has(file))).toEqual([]);
  });

  it("gives the client one property per API area module, as gen-registry writes it", () => {
    const areas = readdirSync(path.join(root, "provider", "client"))
      .filter((file) => file.endsWith(".ts") && file !== "index.ts" && file !== "areas.ts")
      .map((file) => file.slice(0, -".ts".length))
      .flatMap((name) => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const exports = require(`../../provider/client/${name}`) as { area?: ClientArea };
        return exports.area === undefined ? [] : [{ name, area: exports.area }];
      });
    expect(areas.map(({ area }) => area.property)).toEqual(
      expect.arrayContaining(["sshKeys", "instances", "billing"]),
    );
    const committed = readFileSync(path.join(root, "provider", "client", "areas.ts"), "utf8");
    expect(committed).toBe(clientAreasFile(areas));
  });

  it("holds each module's own descriptor, one per type", () => {
    for (const { name, descriptor } of resourceModules) {
      expect(modules.find((module) => module.name === name)?.descriptor).toBe(descriptor);
    }
    const types = resourceModules.map(({ descriptor }) => descriptor.type);
    expect(new Set(types).size).toBe(types.length);
  });

  it("makes the package export each class a resource module has", () => {
    for (const { descriptor } of resourceModules) {
      expect(descriptor.type in gpucloud).toBe(!descriptor.overlay);
    }
  });

  it("has each emulator route documented by one area alone", () => {
    const documented = areas.flatMap((area) => Object.keys(area.documented));
    const lenient = areas.flatMap((area) => Object.keys(area.lenient ?? {}));
    expect(documented).toHaveLength(Object.keys(SERVICE_ROUTES).length);
    expect(lenient).toHaveLength(Object.keys(LENIENT_ROUTES).length);
  });
});
