"""Homes and commands for bench/search_recall.py: five homes, English and German.

An entity is "domain.object_id|Name|Area|device_class" (area and class may be empty);
a home's areas map to floors as (floor name, level, aliases). A command is
(home, language, sentence as said, the entity ids it means).
"""

FLOORS: dict[str, dict[str, tuple[str, int, tuple[str, ...]]]] = {
    "flat": {},
    "wohnung": {},
    "cottage": {
        **dict.fromkeys(
            ("Living room", "Kitchen", "Hall", "Garage"), ("Ground floor", 0, ())
        ),
        **dict.fromkeys(
            ("Bedroom", "Kids room", "Bathroom", "Study"), ("First floor", 1, ())
        ),
    },
    "haus": {
        **dict.fromkeys(
            ("Wohnzimmer", "Küche", "Flur", "Gäste-WC", "Garten"),
            ("Erdgeschoss", 0, ("EG",)),
        ),
        **dict.fromkeys(
            ("Schlafzimmer", "Kinderzimmer", "Badezimmer", "Arbeitszimmer"),
            ("Obergeschoss", 1, ("OG",)),
        ),
        **dict.fromkeys(("Keller", "Waschküche"), ("Keller", -1, ())),
    },
    "villa": {},  # filled below
}

FLAT = """
light.ceiling|Ceiling light|Studio|
light.desk_lamp|Desk lamp|Studio|
light.fairy_lights|Fairy lights|Studio|
switch.kettle|Kettle|Studio|
switch.heater_plug|Heater plug|Studio|outlet
media_player.speaker|Speaker|Studio|speaker
cover.curtain|Curtain|Studio|curtain
sensor.temperature|Temperature|Studio|temperature
todo.shopping_list|Shopping list||
vacuum.robot|Robot vacuum|Studio|
lock.front_door|Front door|Studio|
"""

WOHNUNG = """
light.deckenlampe_wohnzimmer|Deckenlampe|Wohnzimmer|
light.stehlampe|Stehlampe|Wohnzimmer|
light.leselampe|Leselampe|Wohnzimmer|
light.lichterkette|Lichterkette|Wohnzimmer|
light.kuechenlicht|Küchenlicht|Küche|
light.unterschrank|Unterschrankbeleuchtung|Küche|
light.schlafzimmer|Schlafzimmerlampe|Schlafzimmer|
light.nachttisch|Nachttischlampe|Schlafzimmer|
light.bad|Spiegelschrank|Bad|
light.flur|Flurlicht|Flur|
cover.rollladen_wohnzimmer|Rollladen Wohnzimmer|Wohnzimmer|shutter
cover.rollladen_schlafzimmer|Rollladen Schlafzimmer|Schlafzimmer|shutter
cover.vorhang|Vorhang|Schlafzimmer|curtain
media_player.fernseher|Fernseher|Wohnzimmer|tv
media_player.sonos_kueche|Sonos Küche|Küche|speaker
media_player.sonos_bad|Sonos Bad|Bad|speaker
climate.heizung_wohnzimmer|Heizung Wohnzimmer|Wohnzimmer|
climate.heizung_bad|Heizung Bad|Bad|
sensor.temperatur_wohnzimmer|Temperatur Wohnzimmer|Wohnzimmer|temperature
sensor.luftfeuchtigkeit_bad|Luftfeuchtigkeit Bad|Bad|humidity
binary_sensor.fenster_kueche|Fenster Küche|Küche|window
switch.kaffeemaschine|Kaffeemaschine|Küche|
switch.waschmaschine|Waschmaschine|Bad|
todo.einkaufsliste|Einkaufsliste||
todo.aufgaben|Aufgaben||
vacuum.saugroboter|Saugroboter|Wohnzimmer|
lock.wohnungstuer|Wohnungstür|Flur|
"""

COTTAGE = """
light.living_room_ceiling|Living room ceiling|Living room|
light.floor_lamp|Floor lamp|Living room|
light.reading_lamp|Reading lamp|Living room|
light.kitchen_ceiling|Kitchen ceiling|Kitchen|
light.kitchen_island|Island lights|Kitchen|
light.under_cabinet|Under cabinet lights|Kitchen|
light.hall|Hall light|Hall|
light.garage|Garage light|Garage|
light.bedroom_ceiling|Bedroom ceiling|Bedroom|
light.bedside_left|Bedside lamp left|Bedroom|
light.bedside_right|Bedside lamp right|Bedroom|
light.kids_room|Kids room light|Kids room|
light.night_light|Night light|Kids room|
light.bathroom|Bathroom light|Bathroom|
light.mirror|Mirror light|Bathroom|
light.study|Study lamp|Study|
light.porch|Porch light||
light.garden|Garden lights||
cover.living_room_blinds|Living room blinds|Living room|blind
cover.kitchen_blind|Kitchen blind|Kitchen|blind
cover.bedroom_curtains|Bedroom curtains|Bedroom|curtain
cover.study_shade|Study shade|Study|shade
cover.garage_door|Garage door|Garage|garage
media_player.living_room_tv|Living room TV|Living room|tv
media_player.kitchen_speaker|Kitchen speaker|Kitchen|speaker
media_player.bedroom_speaker|Bedroom speaker|Bedroom|speaker
media_player.kids_speaker|Kids speaker|Kids room|speaker
climate.thermostat|Thermostat|Hall|
climate.bathroom_heater|Bathroom heater|Bathroom|
sensor.living_room_temperature|Living room temperature|Living room|temperature
sensor.bedroom_temperature|Bedroom temperature|Bedroom|temperature
sensor.outdoor_temperature|Outdoor temperature||temperature
sensor.bathroom_humidity|Bathroom humidity|Bathroom|humidity
sensor.phone_battery|Phone battery||battery
binary_sensor.front_door|Front door sensor|Hall|door
binary_sensor.back_door|Back door|Kitchen|door
binary_sensor.kitchen_window|Kitchen window|Kitchen|window
binary_sensor.hall_motion|Hall motion|Hall|motion
binary_sensor.smart_lock|Smart lock|Hall|lock
lock.smart_lock|Smart lock|Hall|
lock.back_door|Back door lock|Kitchen|
switch.coffee_machine|Coffee machine|Kitchen|
switch.dishwasher|Dishwasher|Kitchen|
switch.christmas_tree|Christmas tree|Living room|
switch.electric_blanket|Electric blanket|Bedroom|
fan.bedroom_fan|Bedroom fan|Bedroom|
fan.study_fan|Ceiling fan|Study|
todo.shopping_list|Shopping list||
todo.tasks|Tasks||
todo.homework|School tasks|Kids room|
vacuum.roborock|Roborock|Living room|
scene.movie_night|Movie night||
script.good_night|Good night||
alarm_control_panel.alarm|House alarm|Hall|
valve.sprinkler|Garden sprinkler||
"""

HAUS = """
light.wohnzimmer_decke|Deckenleuchte Wohnzimmer|Wohnzimmer|
light.wohnzimmer_stehlampe|Stehlampe|Wohnzimmer|
light.wohnzimmer_led|LED-Streifen|Wohnzimmer|
light.kueche_decke|Küchenlampe|Küche|
light.kueche_insel|Kochinsel|Küche|
light.flur_eg|Flurlicht unten|Flur|
light.gaeste_wc|Gäste-WC Licht|Gäste-WC|
light.garten|Gartenbeleuchtung|Garten|
light.terrasse|Terrassenlicht|Garten|
light.schlafzimmer_decke|Deckenlampe Schlafzimmer|Schlafzimmer|
light.schlafzimmer_nacht|Nachttischlampe|Schlafzimmer|
light.kinderzimmer|Kinderzimmerlampe|Kinderzimmer|
light.kinderzimmer_stern|Sternenhimmel|Kinderzimmer|
light.bad|Badlicht|Badezimmer|
light.arbeitszimmer|Schreibtischlampe|Arbeitszimmer|
light.keller|Kellerlicht|Keller|
light.waschkueche|Waschküchenlicht|Waschküche|
cover.wohnzimmer_rollladen|Rollladen Wohnzimmer|Wohnzimmer|shutter
cover.kueche_rollladen|Rollladen Küche|Küche|shutter
cover.schlafzimmer_rollladen|Rollladen Schlafzimmer|Schlafzimmer|shutter
cover.kinderzimmer_rollladen|Rollladen Kinderzimmer|Kinderzimmer|shutter
cover.arbeitszimmer_jalousie|Jalousie Arbeitszimmer|Arbeitszimmer|blind
cover.markise|Markise|Garten|awning
cover.garagentor|Garagentor||garage
media_player.wohnzimmer_tv|Fernseher Wohnzimmer|Wohnzimmer|tv
media_player.kueche_radio|Küchenradio|Küche|speaker
media_player.kinderzimmer_box|Toniebox|Kinderzimmer|speaker
media_player.bad_lautsprecher|Lautsprecher Bad|Badezimmer|speaker
climate.wohnzimmer|Thermostat Wohnzimmer|Wohnzimmer|
climate.schlafzimmer|Thermostat Schlafzimmer|Schlafzimmer|
climate.bad|Heizung Bad|Badezimmer|
sensor.wohnzimmer_temp|Temperatur Wohnzimmer|Wohnzimmer|temperature
sensor.aussen_temp|Außentemperatur|Garten|temperature
sensor.keller_feuchte|Luftfeuchtigkeit Keller|Keller|humidity
binary_sensor.haustuer|Haustür|Flur|door
binary_sensor.terrassentuer|Terrassentür|Wohnzimmer|door
binary_sensor.fenster_bad|Fenster Bad|Badezimmer|window
lock.haustuer|Haustürschloss|Flur|
switch.waschmaschine|Waschmaschine|Waschküche|
switch.trockner|Trockner|Waschküche|
switch.kaffeemaschine|Kaffeemaschine|Küche|
fan.schlafzimmer|Ventilator|Schlafzimmer|
todo.einkaufsliste|Einkaufsliste||
todo.hausaufgaben|Hausaufgaben|Kinderzimmer|
todo.putzplan|Putzplan||
vacuum.saugroboter|Saugroboter|Wohnzimmer|
lawn_mower.rasenmaeher|Mähroboter|Garten|
valve.bewaesserung|Bewässerung|Garten|
scene.fernsehabend|Fernsehabend||
"""

# The villa: three floors, English and German names, 150+ entities.
_VILLA_FLOORS = {
    "Basement": (-1, ("Cellar",), ["Gym", "Laundry", "Wine cellar", "Workshop"]),
    "Ground floor": (
        0,
        ("Downstairs",),
        ["Living room", "Kitchen", "Dining room", "Hall", "Office", "Guest WC"],
    ),
    "First floor": (
        1,
        ("Upstairs",),
        ["Master bedroom", "Guest bedroom", "Kids bedroom", "Bathroom", "Library"],
    ),
    "Attic": (2, ("Dachgeschoss",), ["Studio", "Attic bedroom", "Storage"]),
}
FLOORS["villa"] = {
    area: (floor, level, aliases)
    for floor, (level, aliases, areas) in _VILLA_FLOORS.items()
    for area in areas
}


def _villa() -> str:
    lines = []
    for areas in (v[2] for v in _VILLA_FLOORS.values()):
        for area in areas:
            key = area.lower().replace(" ", "_")
            lines += [
                f"light.{key}_ceiling|{area} ceiling light|{area}|",
                f"light.{key}_lamp|{area} lamp|{area}|",
                f"sensor.{key}_temperature|{area} temperature|{area}|temperature",
                f"sensor.{key}_humidity|{area} humidity|{area}|humidity",
                f"binary_sensor.{key}_motion|{area} motion|{area}|motion",
                f"binary_sensor.{key}_window|{area} window|{area}|window",
                f"switch.{key}_socket|{area} socket|{area}|outlet",
            ]
            if "bedroom" in key or key in ("living_room", "office", "library"):
                lines.append(f"cover.{key}_blinds|{area} blinds|{area}|blind")
                lines.append(f"climate.{key}|{area} thermostat|{area}|")
            if key in ("living_room", "kitchen", "master_bedroom", "gym", "studio"):
                lines.append(f"media_player.{key}|{area} speaker|{area}|speaker")
    lines += [
        "media_player.living_room_tv|Fernseher|Living room|tv",
        "media_player.kino|Heimkino|Basement|",
        "light.stairs|Treppenlicht|Hall|",
        "light.chandelier|Kronleuchter|Dining room|",
        "cover.garage|Garage door||garage",
        "cover.pergola|Pergola|Garden|awning",
        "light.garden_path|Garden path lights|Garden|",
        "light.pool|Pool lights|Garden|",
        "switch.pool_pump|Pool pump|Garden|",
        "lock.front_door|Front door|Hall|",
        "lock.back_door|Terrace door lock|Living room|",
        "vacuum.downstairs|Robi|Living room|",
        "vacuum.upstairs|Robi upstairs|Library|",
        "todo.shopping|Einkaufsliste||",
        "todo.chores|Chores||",
        "todo.hardware|Baumarkt||",
        "switch.sauna|Sauna|Gym|",
        "switch.washer|Washing machine|Laundry|",
        "switch.dryer|Tumble dryer|Laundry|",
        "sensor.washer_power|Washing machine power|Laundry|power",
        "fan.attic|Attic fan|Storage|",
        "alarm_control_panel.house|Alarm system|Hall|",
        "camera.door|Doorbell camera|Hall|",
        "sensor.outside_temperature|Outside temperature||temperature",
    ]
    return "\n".join(lines)


HOMES = {
    "flat": FLAT,
    "wohnung": WOHNUNG,
    "cottage": COTTAGE,
    "haus": HAUS,
    "villa": _villa(),
}

# home|language|sentence|entity ids it means
COMMANDS = """
flat|en|turn on the ceiling light|light.ceiling
flat|en|turn off the lights|light.ceiling,light.desk_lamp,light.fairy_lights
flat|en|switch on the desk lamp|light.desk_lamp
flat|en|turn on the fairy lights|light.fairy_lights
flat|en|boil the kettle|switch.kettle
flat|en|turn on the heater|switch.heater_plug
flat|en|pause the music|media_player.speaker
flat|en|mute the speaker|media_player.speaker
flat|en|close the curtains|cover.curtain
flat|en|what's the temperature|sensor.temperature
flat|en|put apples on the shopping list|todo.shopping_list
flat|en|start the vacuum|vacuum.robot
flat|en|lock the front door|lock.front_door
flat|en|is the front door locked|lock.front_door
flat|en|vacuum the flat|vacuum.robot
flat|de|mach das Licht an der Decke an|light.ceiling
flat|de|schalte die Schreibtischlampe ein|light.desk_lamp
flat|de|mach die Musik leiser|media_player.speaker
flat|de|schließ den Vorhang|cover.curtain
flat|de|setz Milch auf die Einkaufsliste|todo.shopping_list
wohnung|de|mach die Deckenlampe an|light.deckenlampe_wohnzimmer
wohnung|de|schalte alle Lampen im Wohnzimmer aus|light.deckenlampe_wohnzimmer,light.stehlampe,light.leselampe,light.lichterkette
wohnung|de|mach das Licht in der Küche an|light.kuechenlicht,light.unterschrank
wohnung|de|schalte die Leselampe ein|light.leselampe
wohnung|de|Lichterkette an|light.lichterkette
wohnung|de|mach die Nachttischlampe aus|light.nachttisch
wohnung|de|Licht im Flur an|light.flur
wohnung|de|Licht im Bad an|light.bad
wohnung|de|fahr die Rollläden runter|cover.rollladen_wohnzimmer,cover.rollladen_schlafzimmer
wohnung|de|Rollladen im Schlafzimmer hoch|cover.rollladen_schlafzimmer
wohnung|de|schließ die Vorhänge|cover.vorhang
wohnung|de|mach den Fernseher aus|media_player.fernseher
wohnung|de|pausiere die Musik in der Küche|media_player.sonos_kueche
wohnung|de|Musik im Bad lauter|media_player.sonos_bad
wohnung|de|stell die Heizung im Wohnzimmer auf 21 Grad|climate.heizung_wohnzimmer
wohnung|de|wie warm ist es im Wohnzimmer|sensor.temperatur_wohnzimmer,climate.heizung_wohnzimmer
wohnung|de|wie hoch ist die Luftfeuchtigkeit im Bad|sensor.luftfeuchtigkeit_bad
wohnung|de|ist das Fenster in der Küche offen|binary_sensor.fenster_kueche
wohnung|de|mach die Kaffeemaschine an|switch.kaffeemaschine
wohnung|de|ist die Waschmaschine fertig|switch.waschmaschine
wohnung|de|setz Eier auf die Einkaufsliste|todo.einkaufsliste
wohnung|de|was steht auf meiner Aufgabenliste|todo.aufgaben
wohnung|de|starte den Staubsauger|vacuum.saugroboter
wohnung|de|sperr die Wohnungstür ab|lock.wohnungstuer
wohnung|de|schließ die Tür ab|lock.wohnungstuer
wohnung|en|turn on the floor lamp|light.stehlampe
wohnung|en|pause the tv|media_player.fernseher
wohnung|en|add bread to the shopping list|todo.einkaufsliste
wohnung|en|clean the living room|vacuum.saugroboter
wohnung|en|close the shutters|cover.rollladen_wohnzimmer,cover.rollladen_schlafzimmer
cottage|en|turn off the lights upstairs|light.bedroom_ceiling,light.bedside_left,light.bedside_right,light.kids_room,light.night_light,light.bathroom,light.mirror,light.study
cottage|en|turn on all the lights downstairs|light.living_room_ceiling,light.floor_lamp,light.reading_lamp,light.kitchen_ceiling,light.kitchen_island,light.under_cabinet,light.hall,light.garage
cottage|en|turn on the living room lights|light.living_room_ceiling,light.floor_lamp,light.reading_lamp
cottage|en|turn on the kitchen lights|light.kitchen_ceiling,light.kitchen_island,light.under_cabinet
cottage|en|turn on the reading lamp|light.reading_lamp
cottage|en|switch on the island lights|light.kitchen_island
cottage|en|turn off the bedside lamps|light.bedside_left,light.bedside_right
cottage|en|turn on the left bedside lamp|light.bedside_left
cottage|en|dim the bedroom lights|light.bedroom_ceiling,light.bedside_left,light.bedside_right
cottage|en|turn on the night light|light.night_light
cottage|en|turn on the porch light|light.porch
cottage|en|turn on the garden lights|light.garden
cottage|en|turn on the mirror light|light.mirror
cottage|en|turn on the lamp in the study|light.study
cottage|en|turn on the hall light|light.hall
cottage|en|open the living room blinds|cover.living_room_blinds
cottage|en|close all the blinds|cover.living_room_blinds,cover.kitchen_blind
cottage|en|close the curtains|cover.bedroom_curtains
cottage|en|lower the shade in the study|cover.study_shade
cottage|en|open the garage|cover.garage_door
cottage|en|close the garage door|cover.garage_door
cottage|en|close everything upstairs|cover.bedroom_curtains,cover.study_shade
cottage|en|pause the tv|media_player.living_room_tv
cottage|en|play music in the kitchen|media_player.kitchen_speaker
cottage|en|pause the music in the bedroom|media_player.bedroom_speaker
cottage|en|mute the kids speaker|media_player.kids_speaker
cottage|en|turn the volume down in the kitchen|media_player.kitchen_speaker
cottage|en|set the thermostat to 21|climate.thermostat
cottage|en|turn on the heating in the bathroom|climate.bathroom_heater
cottage|en|what's the temperature in the bedroom|sensor.bedroom_temperature
cottage|en|how warm is it outside|sensor.outdoor_temperature
cottage|en|how humid is the bathroom|sensor.bathroom_humidity
cottage|en|what's the humidity in the bathroom|sensor.bathroom_humidity
cottage|en|how much battery does my phone have|sensor.phone_battery
cottage|en|is the front door open|binary_sensor.front_door
cottage|en|is the back door open|binary_sensor.back_door
cottage|en|is the kitchen window closed|binary_sensor.kitchen_window
cottage|en|is there motion in the hall|binary_sensor.hall_motion
cottage|en|lock smart lock|lock.smart_lock
cottage|en|lock the back door|lock.back_door
cottage|en|unlock the smart lock|lock.smart_lock
cottage|en|turn on the coffee machine|switch.coffee_machine
cottage|en|start the dishwasher|switch.dishwasher
cottage|en|turn on the christmas tree|switch.christmas_tree
cottage|en|turn on the electric blanket|switch.electric_blanket
cottage|en|turn on the fan in the bedroom|fan.bedroom_fan
cottage|en|turn on the ceiling fan|fan.study_fan
cottage|en|put apples on the shopping list|todo.shopping_list
cottage|en|add call the plumber to my tasks|todo.tasks
cottage|en|add history homework to the school tasks|todo.homework
cottage|en|history homework on my task list|todo.tasks,todo.homework
cottage|en|clean the living room|vacuum.roborock
cottage|en|send the robot to the kitchen|vacuum.roborock
cottage|en|start movie night|scene.movie_night
cottage|en|run good night|script.good_night
cottage|en|arm the alarm|alarm_control_panel.alarm
cottage|en|water the garden|valve.sprinkler
cottage|en|turn on the sprinkler|valve.sprinkler
cottage|de|mach alle Lichter oben aus|light.bedroom_ceiling,light.bedside_left,light.bedside_right,light.kids_room,light.night_light,light.bathroom,light.mirror,light.study
cottage|de|schließ die Jalousien|cover.living_room_blinds,cover.kitchen_blind
haus|de|mach alle Lichter im Obergeschoss aus|light.schlafzimmer_decke,light.schlafzimmer_nacht,light.kinderzimmer,light.kinderzimmer_stern,light.bad,light.arbeitszimmer
haus|de|schalte unten alle Lampen aus|light.wohnzimmer_decke,light.wohnzimmer_stehlampe,light.wohnzimmer_led,light.kueche_decke,light.kueche_insel,light.flur_eg,light.gaeste_wc,light.garten,light.terrasse
haus|de|mach das Licht im Keller an|light.keller
haus|de|Licht in der Waschküche an|light.waschkueche
haus|de|mach das Licht im Wohnzimmer an|light.wohnzimmer_decke,light.wohnzimmer_stehlampe,light.wohnzimmer_led
haus|de|schalte die Deckenleuchte im Wohnzimmer ein|light.wohnzimmer_decke
haus|de|Stehlampe an|light.wohnzimmer_stehlampe
haus|de|mach den LED-Streifen blau|light.wohnzimmer_led
haus|de|Küchenlampe aus|light.kueche_decke
haus|de|mach das Licht über der Kochinsel an|light.kueche_insel
haus|de|schalte die Gartenbeleuchtung ein|light.garten
haus|de|Terrassenlicht an|light.terrasse
haus|de|mach die Nachttischlampe an|light.schlafzimmer_nacht
haus|de|schalte den Sternenhimmel im Kinderzimmer ein|light.kinderzimmer_stern
haus|de|Licht im Kinderzimmer aus|light.kinderzimmer,light.kinderzimmer_stern
haus|de|mach das Badlicht an|light.bad
haus|de|schalte die Schreibtischlampe ein|light.arbeitszimmer
haus|de|fahr alle Rollläden runter|cover.wohnzimmer_rollladen,cover.kueche_rollladen,cover.schlafzimmer_rollladen,cover.kinderzimmer_rollladen
haus|de|Rollladen im Schlafzimmer hoch|cover.schlafzimmer_rollladen
haus|de|schließ die Jalousie im Arbeitszimmer|cover.arbeitszimmer_jalousie
haus|de|fahr die Markise aus|cover.markise
haus|de|öffne das Garagentor|cover.garagentor
haus|de|mach die Rollläden oben zu|cover.schlafzimmer_rollladen,cover.kinderzimmer_rollladen
haus|de|pausiere den Fernseher|media_player.wohnzimmer_tv
haus|de|spiel Musik in der Küche|media_player.kueche_radio
haus|de|mach das Radio leiser|media_player.kueche_radio
haus|de|stopp die Toniebox|media_player.kinderzimmer_box
haus|de|Musik im Bad aus|media_player.bad_lautsprecher
haus|de|stell das Thermostat im Schlafzimmer auf 18 Grad|climate.schlafzimmer
haus|de|mach die Heizung im Bad wärmer|climate.bad
haus|de|wie warm ist es draußen|sensor.aussen_temp
haus|de|wie ist die Temperatur im Wohnzimmer|sensor.wohnzimmer_temp,climate.wohnzimmer
haus|de|wie feucht ist es im Keller|sensor.keller_feuchte
haus|de|ist die Haustür offen|binary_sensor.haustuer
haus|de|ist die Terrassentür zu|binary_sensor.terrassentuer
haus|de|ist das Fenster im Bad offen|binary_sensor.fenster_bad
haus|de|schließ die Haustür ab|lock.haustuer
haus|de|ist die Waschmaschine an|switch.waschmaschine
haus|de|schalte den Trockner ein|switch.trockner
haus|de|mach mir einen Kaffee|switch.kaffeemaschine
haus|de|schalte den Ventilator ein|fan.schlafzimmer
haus|de|setz Butter auf die Einkaufsliste|todo.einkaufsliste
haus|de|Mathe auf die Hausaufgaben Liste|todo.hausaufgaben
haus|de|was steht auf dem Putzplan|todo.putzplan
haus|de|sauge das Wohnzimmer|vacuum.saugroboter
haus|de|starte den Saugroboter|vacuum.saugroboter
haus|de|schick den Mähroboter los|lawn_mower.rasenmaeher
haus|de|mäh den Rasen|lawn_mower.rasenmaeher
haus|de|starte die Bewässerung im Garten|valve.bewaesserung
haus|de|starte den Fernsehabend|scene.fernsehabend
haus|en|turn off the lights upstairs|light.schlafzimmer_decke,light.schlafzimmer_nacht,light.kinderzimmer,light.kinderzimmer_stern,light.bad,light.arbeitszimmer
haus|en|close the shutters|cover.wohnzimmer_rollladen,cover.kueche_rollladen,cover.schlafzimmer_rollladen,cover.kinderzimmer_rollladen
haus|en|open the garage|cover.garagentor
villa|en|turn off all the lights upstairs|light.master_bedroom_ceiling,light.master_bedroom_lamp,light.guest_bedroom_ceiling,light.guest_bedroom_lamp,light.kids_bedroom_ceiling,light.kids_bedroom_lamp,light.bathroom_ceiling,light.bathroom_lamp,light.library_ceiling,light.library_lamp
villa|en|turn on the lights in the basement|light.gym_ceiling,light.gym_lamp,light.laundry_ceiling,light.laundry_lamp,light.wine_cellar_ceiling,light.wine_cellar_lamp,light.workshop_ceiling,light.workshop_lamp
villa|en|turn on the bedroom lights upstairs|light.master_bedroom_ceiling,light.master_bedroom_lamp,light.guest_bedroom_ceiling,light.guest_bedroom_lamp,light.kids_bedroom_ceiling,light.kids_bedroom_lamp
villa|en|turn on the kitchen ceiling light|light.kitchen_ceiling
villa|en|turn on the lamp in the library|light.library_lamp
villa|en|turn on the lights in the living room|light.living_room_ceiling,light.living_room_lamp
villa|en|turn on the master bedroom lamp|light.master_bedroom_lamp
villa|en|switch on the office lamp|light.office_lamp
villa|en|turn on the stairs light|light.stairs
villa|en|dim the chandelier|light.chandelier
villa|en|turn on the pool lights|light.pool
villa|en|turn on the garden path lights|light.garden_path
villa|en|close the blinds in the guest bedroom|cover.guest_bedroom_blinds
villa|en|close all blinds upstairs|cover.master_bedroom_blinds,cover.guest_bedroom_blinds,cover.kids_bedroom_blinds,cover.library_blinds
villa|en|open the garage|cover.garage
villa|en|open the pergola|cover.pergola
villa|en|pause the music in the kitchen|media_player.kitchen
villa|en|play music in the gym|media_player.gym
villa|en|mute the tv|media_player.living_room_tv
villa|en|turn on the home cinema|media_player.kino
villa|en|what is the temperature in the wine cellar|sensor.wine_cellar_temperature
villa|en|how humid is it in the laundry|sensor.laundry_humidity
villa|en|what's the temperature outside|sensor.outside_temperature
villa|en|is there motion in the workshop|binary_sensor.workshop_motion
villa|en|is the studio window open|binary_sensor.studio_window
villa|en|set the office thermostat to 20|climate.office
villa|en|turn up the heating in the master bedroom|climate.master_bedroom
villa|en|lock the front door|lock.front_door
villa|en|lock the terrace door|lock.back_door
villa|en|start the sauna|switch.sauna
villa|en|is the washing machine done|switch.washer,sensor.washer_power
villa|en|turn on the tumble dryer|switch.dryer
villa|en|turn on the pool pump|switch.pool_pump
villa|en|turn on the attic fan|fan.attic
villa|en|arm the alarm|alarm_control_panel.house
villa|en|show the doorbell camera|camera.door
villa|en|add milk to the shopping list|todo.shopping
villa|en|put screws on the hardware store list|todo.hardware
villa|en|what's on my chores list|todo.chores
villa|en|vacuum upstairs|vacuum.upstairs
villa|en|clean downstairs|vacuum.downstairs
villa|en|turn off the socket in the studio|switch.studio_socket
villa|de|mach alle Lichter im Dachgeschoss aus|light.studio_ceiling,light.studio_lamp,light.attic_bedroom_ceiling,light.attic_bedroom_lamp,light.storage_ceiling,light.storage_lamp
villa|de|schalte das Treppenlicht ein|light.stairs
villa|de|mach den Kronleuchter an|light.chandelier
villa|de|mach den Fernseher aus|media_player.living_room_tv
villa|de|starte das Heimkino|media_player.kino
villa|de|setz Milch auf die Einkaufsliste|todo.shopping
villa|de|Schrauben auf die Baumarkt Liste|todo.hardware
villa|de|schließ die Haustür ab|lock.front_door
villa|de|schalte die Sauna ein|switch.sauna
villa|de|öffne das Garagentor|cover.garage
"""
