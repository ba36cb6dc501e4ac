/**
 * Loads a value the first time it is asked for and then answers with it for as long as its
 * holder lives (a run: one `pulumi` operation). A failed load is not kept: the next call tries
 * again.
 */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    if (!loaded) {
      const attempt = load();
      loaded = attempt;
      attempt.catch(() => {
        if (loaded === attempt) loaded = undefined;
      });
    }
    return loaded;
  };
}
