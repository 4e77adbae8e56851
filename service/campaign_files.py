"""What every kind of campaign's progress file shares: the folder it goes to, how it is read and the error it raises.

Why: the lower-bound campaigns (:mod:`service.bound_campaigns`), the rollout campaigns
(:mod:`service.rollouts`) and the polishes (:mod:`service.polishes`) each keep a progress file, by default in
the same folder, and each refuses a file it cannot continue.  One folder name and one exception class, defined
here and nowhere else, mean that the files land side by side and that one ``except CampaignError`` catches
every kind's refusal; :func:`read_json` says alike, for every kind, that a file cannot be read or is not JSON.
This module imports none of the campaigns' modules, so any of them can import it.
"""

from __future__ import annotations

import json
import os
from typing import Any

CAMPAIGNS_ENV = "BULLSCOWS_CAMPAIGNS"
"""The environment variable naming the campaigns' folder (``bullscows --campaigns DIR`` sets it for one command)."""
CHECKOUT_CAMPAIGNS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "campaigns")
"""The checkout's ``campaigns/``, beside the packages: the lab's committed progress files (an installed package
carries none)."""
MAX_SHARES = 64
"""The most shares a check, search or scan may cut its position into (``--shares``, a spec's ``shares``)."""


class CampaignError(ValueError):
    """A progress file that cannot be continued (unreadable, another game's or plan's, finished)."""


def campaign_dir() -> str:
    """The folder where progress files go by default: ``BULLSCOWS_CAMPAIGNS`` when set, else the checkout's
    ``campaigns/``, whichever folder the command runs from (a lab command works from anywhere).

    :raises CampaignError: that folder does not exist (a mistyped ``--campaigns``, or an installed package, which
        has no checkout beside it), said with how to name one."""
    chosen = os.environ.get(CAMPAIGNS_ENV)
    folder = os.path.abspath(chosen) if chosen else CHECKOUT_CAMPAIGNS
    if not os.path.isdir(folder):
        why = (f"the folder --campaigns or {CAMPAIGNS_ENV} names does not exist" if chosen
               else "this installation has no checkout's campaigns/ beside it")
        raise CampaignError(f"{folder}: no campaigns folder there ({why}); name one with `bullscows --campaigns DIR` "
                            f"or {CAMPAIGNS_ENV}")
    return folder


def read_json(path: str) -> Any:
    """The JSON document in ``path`` (a progress file, a spec).

    :raises CampaignError: it cannot be read, or is not JSON, said in one line naming the file."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except OSError as exc:
        raise CampaignError(f"{path} cannot be read: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise CampaignError(f"{path} is not JSON: {exc}") from None
