// A Web Storage (localStorage's interface: getItem, setItem, removeItem, key, length)
// over a Map, for the tests of web/js/store.js under Node. Not a test file itself.

/** Storage over ``data`` (given, so that a test can look at what was written). */
export function memoryStorage(data = new Map()) {
  return {
    getItem: (k) => (data.has(k) ? data.get(k) : null),
    setItem: (k, v) => data.set(k, String(v)),
    removeItem: (k) => data.delete(k),
    key: (i) => [...data.keys()][i] ?? null,
    get length() {
      return data.size;
    },
  };
}
