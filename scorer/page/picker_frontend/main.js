// The clickable picture of scorer/page/picker.py, speaking Streamlit's component messages.
// Every change of the picture's size (it loads, the window turns or narrows, the sidebar
// opens) sets the frame's height to the picture's, so the frame never leaves a blank band.
const image = document.getElementById("image");
let frameHeight = -1;

function send(type, data) {
  window.parent.postMessage(Object.assign({ isStreamlitMessage: true, type: type }, data), "*");
}

function fitFrame() {
  const height = Math.ceil(image.getBoundingClientRect().height);
  if (image.complete && height !== frameHeight) {
    frameHeight = height;
    send("streamlit:setFrameHeight", { height: height });
  }
}

new ResizeObserver(fitFrame).observe(image);
image.addEventListener("load", fitFrame);

image.addEventListener("click", (event) => {
  send("streamlit:setComponentValue", {
    value: {
      x: event.offsetX,
      y: event.offsetY,
      width: image.clientWidth,
      height: image.clientHeight,
      unix_time: Date.now(),
    },
  });
});

window.addEventListener("message", (event) => {
  const data = event.data;
  if (!data || data.type !== "streamlit:render") {
    return;
  }
  const args = data.args || {};
  if (image.getAttribute("src") !== args.src) {
    image.setAttribute("src", args.src);
  }
  image.alt = args.alt || "";
  image.style.cursor = args.cursor || "pointer";
  fitFrame();
});

send("streamlit:componentReady", { apiVersion: 1 });
