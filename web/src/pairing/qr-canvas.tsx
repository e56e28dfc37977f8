/**
 * A QR code drawn on a canvas, encoded in the page (uqr): the URL it holds carries the token,
 * so no QR service (nor any server) ever sees it. Dark modules on white whatever the theme,
 * with the standard four-module quiet zone: phone cameras read that best.
 */
import { useEffect, useRef } from "preact/hooks";
import { encode } from "uqr";

const QUIET_ZONE = 4;
const PIXELS_PER_MODULE = 6;

export function QrCanvas(props: { text: string; label: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const element = canvas.current;
    const draw = element?.getContext("2d");
    if (element === null || draw === null || draw === undefined) return;
    const { data, size } = encode(props.text, { ecc: "M", border: QUIET_ZONE });
    element.width = size * PIXELS_PER_MODULE;
    element.height = size * PIXELS_PER_MODULE;
    draw.fillStyle = "#ffffff";
    draw.fillRect(0, 0, element.width, element.height);
    draw.fillStyle = "#000000";
    for (const [y, row] of data.entries()) {
      for (const [x, dark] of row.entries()) {
        if (!dark) continue;
        const at = (module: number) => module * PIXELS_PER_MODULE;
        draw.fillRect(at(x), at(y), PIXELS_PER_MODULE, PIXELS_PER_MODULE);
      }
    }
  }, [props.text]);
  return (
    <canvas
      ref={canvas}
      class="qr-code"
      data-testid="pairing-qr"
      role="img"
      aria-label={props.label}
    />
  );
}
