import type { Request } from 'express';
import type { z } from 'zod';
import { AppError } from '../errors.js';
import { parseOrThrow } from '../validation.js';

/** The parsed JSON body, or a 400 in our shape; a route never touches req.body unparsed. */
export function validateBody<S extends z.ZodType>(req: Request, schema: S): z.output<S> {
  if (req.body === undefined) {
    throw new AppError('VALIDATION_ERROR', 'A JSON body is required (Content-Type: application/json)');
  }
  return parseOrThrow(schema, req.body, 'Request body');
}

export function validateQuery<S extends z.ZodType>(req: Request, schema: S): z.output<S> {
  return parseOrThrow(schema, req.query, 'Query');
}
