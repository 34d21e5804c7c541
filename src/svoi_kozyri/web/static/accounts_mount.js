// Preact wrappers of the account pieces (lobby_live.js, profile.js), which render
// into a plain element: <LiveLobby/> in the lobby, <Profile name=.../> for the
// #/u/<name> route.  The account bar lives in the site's header (header.js).
import { html, useEffect, useRef } from "./html.js";
import { mountLiveLobby } from "./lobby_live.js";
import { profilePage } from "./profile.js";

function Mount({ mount, arg, id }) {
  const ref = useRef(null);
  useEffect(() => mount(ref.current, arg), [arg]);
  return html`<div id=${id} ref=${ref}></div>`;
}

export const LiveLobby = () => html`<${Mount} id="lobby-live" mount=${mountLiveLobby} />`;
export const Profile = ({ name }) => html`<${Mount} id="profile-page" mount=${profilePage} arg=${name} />`;
