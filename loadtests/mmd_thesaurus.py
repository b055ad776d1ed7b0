"""The thesaurus guesser of the honest measure; it lives in
:mod:`shared.games.maudit_mot_dit.thesaurus` since the ``strong`` guesser
uses it too."""

from shared.games.maudit_mot_dit.thesaurus import THESAURUS, Thesaurus

__all__ = ["THESAURUS", "Thesaurus"]
