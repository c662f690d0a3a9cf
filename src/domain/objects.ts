/** How an object is named in messages: `type/id`. */
export const objectLabel = (ref: { objectType: string; objectId: string }) => `${ref.objectType}/${ref.objectId}`;
