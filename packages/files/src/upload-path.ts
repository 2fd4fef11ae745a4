/**
 * Whether a request is svc's own local upload PUT (`<prefix>/upload/<id>`):
 * its one-time token authenticates it, so an app's gate resolves no caller
 * and applies no CSRF check for it (like the billing webhook).
 *
 * @example
 * if (isFileUploadPath(req, files.urlPrefix)) return next();
 */
export function isFileUploadPath(
  req: { readonly method: string; readonly path: string },
  urlPrefix: string,
): boolean {
  return req.method === "PUT" && req.path.startsWith(`${urlPrefix}/upload/`);
}
