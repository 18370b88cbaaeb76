/**
 * The real R2 bucket, except that reading an object's body fails after `limit` bytes, once `wholeReads`
 * reads (a row count's, say) have gone through whole: a consumer that crashed mid-file.
 */
export function bucketFailingAfter(bucket: R2Bucket, limit: number, wholeReads = 0): R2Bucket {
  let reads = 0;
  return {
    head: (key: string) => bucket.head(key),
    get: async (key: string) => {
      const object = await bucket.get(key);
      if (!object) return null;
      reads += 1;
      if (reads <= wholeReads) return object;
      let seen = 0;
      const body = object.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            seen += chunk.byteLength;
            if (seen > limit) controller.error(new Error('the consumer was stopped mid-file'));
            else controller.enqueue(chunk);
          },
        }),
      );
      return { size: object.size, body };
    },
  } as unknown as R2Bucket;
}
