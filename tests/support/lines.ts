/** Splits a text stream into lines (the standard library's TextLineStream, which JSR would give). */
export class TextLineStream extends TransformStream<string, string> {
  constructor() {
    let buffer = "";
    super({
      transform(chunk, controller) {
        buffer += chunk;
        const parts = buffer.split("\n");
        buffer = parts.pop() ?? "";
        for (const part of parts) controller.enqueue(part.replace(/\r$/, ""));
      },
      flush(controller) {
        if (buffer) controller.enqueue(buffer);
      },
    });
  }
}
