/**
 * A CommonJS module that loads when something first uses it rather than when something first requires it.
 * Node's require cache (`require.cache`, which Node documents as open to adding entries) gets an entry for
 * the module's file whose exports stand in for the real ones: the first operation on them loads the real
 * module, through Node's own loader, and every operation is forwarded to it. A `require()` of the module,
 * from any package, returns the stand-in; code that requires the module and never uses it loads nothing.
 */
import * as nodeModule from "module";

export interface StandInShape {
  /**
   * The module is an ES module compiled to CommonJS, which marks its exports `__esModule`. The stand-in
   * answers `__esModule` without loading it, either way: TypeScript's and Babel's import helpers
   * (`__importStar`, `__importDefault`) ask as they import, and take the exports as they are when the answer
   * is yes, or wrap them as `{ default: exports }` when it is no.
   */
  esModule: boolean;
  /** The module's exports are a function (`module.exports = fn`): the stand-in can be called. */
  callable?: boolean;
  /**
   * A CommonJS module whose importers read its exports by name (`resrpc.ResourceMonitorClient`): until it
   * loads, the stand-in answers `__esModule` yes, so that `__importStar` takes the stand-in as it is rather
   * than copy every export, which would load the module. Its `default` is the module itself, as
   * `__importStar` and `__importDefault` give a CommonJS module to an importer that takes it as a default.
   */
  readByName?: boolean;
}

export function loadOnFirstUse(
  filename: string,
  { esModule, callable = false, readByName = false }: StandInShape,
): void {
  if (require.cache[filename] !== undefined) return;
  let loaded: object | undefined;
  const real = (): object => {
    if (loaded === undefined) {
      // The stand-in leaves the cache first, so Node loads the file itself and caches the real module.
      delete require.cache[filename];
      loaded = nodeModule.createRequire(filename)(filename) as object;
    }
    return loaded;
  };
  // An arrow function has no own `prototype`, which a proxy would have to report as the target's.
  const target = callable ? () => undefined : {};
  const exports = new Proxy(target, {
    get: (_, key) => {
      if (key === "__esModule" && loaded === undefined) return esModule || readByName || undefined;
      if (key === "default" && readByName && !Reflect.has(real(), "default")) return real();
      return Reflect.get(real(), key);
    },
    apply: (_, self, args) => Reflect.apply(real() as (...a: unknown[]) => unknown, self, args),
    has: (_, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
      // A proxy may report no property as non-configurable that its own (empty) target lacks.
      return descriptor && { ...descriptor, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
    set: (_, key, value) => Reflect.set(real(), key, value),
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(real(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(real(), key),
  });
  const standIn = new nodeModule.Module(filename);
  standIn.filename = filename;
  standIn.exports = exports;
  standIn.loaded = true;
  require.cache[filename] = standIn;
}
