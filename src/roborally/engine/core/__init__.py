"""The edition-free core of the engine: what both editions build on and that knows no edition.

Geometry, boards and courses, the game state and its random generator, events, decisions, the
cards' data, robot movement and the board elements (:mod:`~roborally.engine.core.mechanics`),
the stage driver every ruleset runs on (:mod:`~roborally.engine.core.driver`) and the shared
observation (:mod:`~roborally.engine.core.view`). The editions sit beside it
(:mod:`roborally.engine.rules2023`, :mod:`roborally.engine.classic`); nothing here imports them.
"""
