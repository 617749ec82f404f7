// The forms a secret could leave in, and a search for them in text a test collected (a comment, a review, a
// model request, a push).

/** Every form a secret could leave in: raw, reversed, hex, base64 (also as git's basic-auth header). */
export function secretForms(secret: string): string[] {
  const basic = Buffer.from(`x-access-token:${secret}`).toString('base64');
  return [
    secret,
    [...secret].reverse().join(''),
    Buffer.from(secret).toString('hex'),
    Buffer.from(secret).toString('base64').replace(/=+$/, ''),
    basic.replace(/=+$/, ''),
    [...basic].reverse().join('').replace(/^=+/, ''),
  ];
}

/** The forms of `secrets` found in `haystack`, whitespace removed (hex split over lines by xxd still shows). */
export function leaksOf(secrets: readonly string[], haystack: string): string[] {
  const flat = haystack.replace(/\s+/g, '');
  const lower = flat.toLowerCase();
  return secrets.flatMap((secret) =>
    secretForms(secret).filter((form) => flat.includes(form) || lower.includes(form.toLowerCase())),
  );
}
