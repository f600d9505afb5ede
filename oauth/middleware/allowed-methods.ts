import type { RequestHandler } from 'express';
import { oauthError, OAuthErrorCode } from '../errors.js';

/** 405 with `Allow` for any other method, in OAuth's error shape (the protocol endpoints answer JSON). */
export function allowedMethods(methods: readonly string[]): RequestHandler {
  return (req, res, next) => {
    if (methods.includes(req.method)) return next();
    const err = oauthError(OAuthErrorCode.MethodNotAllowed, `The method ${req.method} is not allowed for this endpoint`);
    res.status(405).set('Allow', methods.join(', ')).json(err.toResponseObject());
  };
}
