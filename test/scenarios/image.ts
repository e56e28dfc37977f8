/** The image both surfaces' image-attachment scenarios attach, and the prompt it goes with. */

/** A 1x1 PNG, as a data URL. */
export const PIXEL_URL =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

export const PIXEL_NAME = "pixel.png";

/** The text sent with the image: the scripted model replies "seen". */
export const IMAGE_PROMPT = "[[reply seen]]";
