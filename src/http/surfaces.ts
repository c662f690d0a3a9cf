import { Type, type TObject, type TProperties } from '@sinclair/typebox';
import { WorkspaceParamsSchema } from '../schemas/common.js';

/**
 * A read route the console needs from the base surface is registered twice: on the base surface
 * (`/v1/…`, API key or signed workspace key) and as its management twin (`/management/v1/{workspace}/…`,
 * service token), with the same handler and the same shapes (docs/management-twins.md).
 */
export type Surface = 'base' | 'management';

/** The route's path on this surface: `/v1/message/` or `/v1/:workspace/message/`. */
export const surfacePath = (surface: Surface, path: `/${string}`) =>
  surface === 'base' ? `/v1${path}` : `/v1/:workspace${path}`;

/** The route's params: the management twin adds the workspace slug. */
export function surfaceParams<P extends TProperties>(surface: Surface, properties: P): TObject<P> {
  return (
    surface === 'base' ? Type.Object(properties) : Type.Object({ ...WorkspaceParamsSchema.properties, ...properties })
  ) as TObject<P>;
}

/** OpenAPI operation ids are unique: the twin's is prefixed. */
export const surfaceOperation = (surface: Surface, operationId: string) =>
  surface === 'base' ? operationId : `management${operationId[0]!.toUpperCase()}${operationId.slice(1)}`;

/** The twin is documented under its own tag, beside the management resources. */
export const surfaceTags = (surface: Surface, tag: string) => [surface === 'base' ? tag : `management ${tag}`];
