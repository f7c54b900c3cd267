// The database a MongoDB connection string names, read without the driver so the config can refuse a URL that
// names none: the driver then silently uses `test`, and workers started with and without a name would split the
// actors over two databases.

/** Characters MongoDB refuses in a database name (on any platform), and its length limit in bytes. */
const FORBIDDEN = /[/\\. "$*<>:|?\0]/;
const MAX_BYTES = 63;

/**
 * The database named in the path of a `mongodb://` or `mongodb+srv://` URL (`…/<database>?options`), decoded; null
 * when the path is absent or empty. The authority never holds an unescaped `/` (the driver refuses one in a user or
 * password, and socket paths are percent-encoded), so the first `/` after the scheme starts the path.
 */
export function mongoDatabaseOf(url: string): string | null {
  const scheme = /^mongodb(\+srv)?:\/\//i.exec(url);
  if (!scheme) return null;
  const rest = url.slice(scheme[0].length);
  const end = rest.search(/[?#]/);
  const beforeQuery = end === -1 ? rest : rest.slice(0, end);
  const slash = beforeQuery.indexOf('/');
  if (slash === -1) return null;
  const path = beforeQuery.slice(slash + 1);
  if (path === '') return null;
  try {
    return decodeURIComponent(path);
  } catch {
    // Malformed percent-encoding: the driver refuses the whole URL when the store opens, naming MONGODB_URL.
    return path;
  }
}

/** Why MongoDB would refuse `name` as a database name, or null when it is acceptable. */
export function mongoDatabaseProblem(name: string): string | null {
  if (name === '') return 'is empty';
  const bad = FORBIDDEN.exec(name);
  if (bad) return `contains ${JSON.stringify(bad[0])}, which MongoDB refuses in a database name`;
  if (Buffer.byteLength(name, 'utf8') > MAX_BYTES) return `is longer than ${MAX_BYTES} bytes`;
  return null;
}
