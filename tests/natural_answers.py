"""What people answer to "Shall I unlock Front door?", per language, as they say it.

Shared by the word-level tests (test_answers.py) and the spoken stories
(test_answer_stories.py). Most forms are combinations that are in no word list as a
whole: the answer is judged word by word.
"""

from typing import NamedTuple


class Natural(NamedTuple):
    """A language's natural answers to an unlock of Front door."""

    yes: tuple[str, ...]
    no: tuple[str, ...]
    # neither: a new request (a yes with more in it, another action, a maybe)
    other: tuple[str, ...]
    # a yes that restates the held action
    restating: str
    # "yes, and also …": a new request
    also: str


NATURAL: dict[str, Natural] = {
    "en": Natural(
        yes=("Yeah, go ahead.", "Sure, do it.", "Okay, right away!", "Go for it, mate.", "Yes please, cheers.", "Yup, sounds good.", "Alright then."),
        no=("No, don't.", "Nah, leave it.", "Nope, not now.", "Hold on, don't unlock it.", "No thanks, never mind.", "Yeah nah."),
        other=("Yes but not the door.", "Maybe.", "Yes and turn on the lights.", "Yes, lock it.", "Yes, 4711.", "Right away.", "The front door?"),
        restating="Yep, unlock the front door please.",
        also="Yes, and also open the garage.",
    ),
    "de": Natural(
        yes=("Ja, mach mal.", "Jo, passt.", "Ja bitte, sofort.", "Na klar, nur zu.", "Freilich, passt eh.", "Jo, gärn.", "Okay, leg los."),
        no=("Nein, lass mal.", "Nee, lieber nicht.", "Bloß nicht!", "Nö, jetzt nicht.", "Na, danke.", "Ja, nein, warte."),
        other=("Ja, aber nicht die Tür.", "Vielleicht.", "Ja, schließ ab.", "Ja und mach das Licht an.", "Sofort."),
        restating="Klar, schließ sie auf!",
        also="Ja, und mach auch das Garagentor auf.",
    ),
    "nl": Natural(
        yes=("Ja hoor, doe maar.", "Oké, ga je gang.", "Ja graag, nu meteen.", "Prima, doe het maar.", "Allee, doe maar.", "Tuurlijk, dat mag."),
        no=("Nee, laat maar.", "Nee dank je, niet nu.", "Liever niet.", "Nee hoor, wacht even.", "Neen, niet doen."),
        other=("Ja maar niet de deur.", "Misschien.", "Ja, doe het licht aan.", "Meteen."),
        restating="Tuurlijk, ontgrendel hem maar.",
        also="Ja, en doe ook de garage open.",
    ),
    "fr": Natural(
        yes=("Ouais, vas-y.", "D'accord, allez-y !", "Bien sûr, tout de suite.", "Oui oui, fais-le s'il te plaît.", "Oui, tiguidou.", "Ça joue.", "Ok, ça marche."),
        no=("Non, laisse tomber.", "Non merci, pas maintenant.", "Ne fais pas ça !", "Attends, ne l'ouvre pas.", "Nan, surtout pas.", "N'ouvre pas !"),
        other=("Oui mais pas la porte.", "Peut-être.", "Oui, et allume la lumière.", "Oui, ferme-la.", "Tout de suite."),
        restating="Oui, déverrouille-la.",
        also="Oui, et ouvre aussi le garage.",
    ),
    "es": Natural(
        yes=("Sí, dale.", "Vale, hazlo ya.", "Venga, adelante.", "Órale, sí.", "Sale, ándale pues.", "Claro que sí, porfa.", "Bueno, dale."),
        no=("No, déjalo.", "No gracias, ahora no.", "Mejor no.", "Espera, no.", "Ni hablar, cancela.", "Nel."),
        other=("Sí pero no la puerta.", "Quizás.", "Sí y enciende las luces.", "Ahora mismo."),
        restating="Claro, ábrela por favor.",
        also="Sí, y abre también el garaje.",
    ),
    "it": Natural(
        yes=("Sì, vai pure.", "Certo, fallo.", "Ok, procedi subito.", "Va bene, grazie.", "Sì dai, fallo pure.", "Ma certo, vai."),
        no=("No, lascia stare.", "No grazie, non ora.", "Meglio di no.", "Aspetta, non aprirla.", "Per carità, no.", "Ma no, lascia perdere."),
        other=("Sì ma non la porta.", "Forse.", "Sì e accendi le luci.", "Subito."),
        restating="Sì sì, sbloccala per favore.",
        also="Sì, e apri anche il garage.",
    ),
    "pl": Natural(
        yes=("Tak, dawaj.", "Dobra, zrób to.", "Pewnie, śmiało.", "No jasne, od razu.", "Spoko, możesz.", "Tak, proszę."),
        no=("Nie, zostaw to.", "Nie dzięki, nie teraz.", "Lepiej nie.", "Czekaj, nie otwieraj.", "W żadnym wypadku.", "No nie."),
        other=("Tak, ale nie drzwi.", "Może.", "Tak i włącz światło.", "Od razu."),
        restating="Jasne, odblokuj je teraz.",
        also="Tak, i otwórz też garaż.",
    ),
    "pt": Natural(
        yes=("Sim, pode fazer.", "Beleza, manda ver.", "Tá bom, pode sim.", "Pode, por favor.", "Sim, força.", "Está bem, faz isso já.", "Claro, valeu."),
        no=("Não, deixa pra lá.", "Não obrigado, agora não.", "Nem pensar.", "Espera, não abre.", "De jeito nenhum.", "Nã, esquece."),
        other=("Sim mas não a porta.", "Talvez.", "Sim e liga as luzes.", "Agora mesmo."),
        restating="Claro, destranca aí.",
        also="Sim, e abre também a garagem.",
    ),
    "sv": Natural(
        yes=("Ja, kör på.", "Absolut, gör det.", "Okej, gör det nu.", "Javisst, gärna.", "Ja tack, direkt.", "Visst, kör."),
        no=("Nej, låt bli.", "Nej tack, inte nu.", "Nä, strunta i det.", "Vänta, gör det inte.", "Absolut inte."),
        other=("Ja men inte dörren.", "Kanske.", "Ja, och tänd lamporna.", "Direkt."),
        restating="Visst, lås upp den.",
        also="Ja, och öppna garaget också.",
    ),
    "da": Natural(
        yes=("Ja, bare gør det.", "Jo, kør bare.", "Ja tak, med det samme.", "Okay, gør det nu.", "Selvfølgelig, gerne.", "Fint, sæt i gang."),
        no=("Nej, lad være.", "Nej tak, ikke nu.", "Næ, glem det.", "Vent, gør det ikke.", "Absolut ikke."),
        other=("Ja men ikke døren.", "Måske.", "Ja og tænd lyset.", "Med det samme."),
        restating="Selvfølgelig, lås den op.",
        also="Ja, og åbn også garagen.",
    ),
    "nb": Natural(
        yes=("Ja, bare kjør.", "Javisst, gjør det.", "Ja takk, med en gang.", "Greit, kjør på.", "Jada, det er greit.", "Ok, sett i gang."),
        no=("Nei, la være.", "Nei takk, ikke nå.", "Næ, drit i det.", "Vent, ikke gjør det.", "Absolutt ikke."),
        other=("Ja men ikke døra.", "Kanskje.", "Ja og slå på lyset.", "Med en gang."),
        restating="Klart, lås den opp.",
        also="Ja, og åpne garasjen også.",
    ),
    "fi": Natural(
        yes=("Joo, tee se.", "Kyllä, anna mennä.", "Juu, heti nyt.", "Totta kai, tee vaan.", "Okei, kiitos.", "Joo joo, mene vaan."),
        no=("Ei, anna olla.", "Ei kiitos, ei nyt.", "Älä tee sitä.", "Odota, älä avaa.", "Ei todellakaan."),
        other=("Kyllä mutta ei ovea.", "Ehkä.", "Joo ja laita valot päälle.", "Heti."),
        restating="Selvä, avaa se.",
        also="Kyllä, ja avaa myös autotalli.",
    ),
    "cs": Natural(
        yes=("Jo, udělej to.", "Jasně, klidně hned.", "Dobře, do toho.", "No jasně, prosím.", "Ano, určitě.", "Tak jo, můžeš."),
        no=("Ne, nech to být.", "Ne díky, teď ne.", "Radši ne.", "Počkej, neodemykej.", "V žádném případě."),
        other=("Ano, ale ne dveře.", "Možná.", "Jo a zapni světla.", "Hned."),
        restating="Ano, odemkni to prosím.",
        also="Ano, a otevři taky garáž.",
    ),
    "ru": Natural(
        yes=("Да, давай.", "Ага, сделай это сейчас.", "Хорошо, давай быстро.", "Ну да, конечно.", "Ладно, можно.", "Да, пожалуйста."),
        no=("Нет, не надо.", "Нет спасибо, не сейчас.", "Ни в коем случае.", "Подожди, не надо.", "Да нет, забудь."),
        other=("Да, но не дверь.", "Может быть.", "Да и включи свет.", "Сейчас."),
        restating="Ладно, отопри её.",
        also="Да, и открой ещё гараж.",
    ),
    "uk": Natural(
        yes=("Так, давай.", "Добре, зроби це зараз.", "Звісно, будь ласка.", "Ага, можна.", "Гаразд, давай швидко.", "Та звісно."),
        no=("Ні, не треба.", "Ні дякую, не зараз.", "В жодному разі.", "Зачекай, не роби цього.", "Ні-ні, забудь."),
        other=("Так, але не двері.", "Можливо.", "Так і увімкни світло.", "Зараз."),
        restating="Гаразд, відімкни її.",
        also="Так, і відчини ще гараж.",
    ),
    "ca": Natural(
        yes=("Sí, endavant.", "D'acord, fes-ho.", "Vinga, som-hi.", "I tant, ara mateix.", "Clar que sí, gràcies.", "Va bé, fes-ho."),
        no=("No, deixa-ho estar.", "No gràcies, ara no.", "Millor no.", "Espera, no ho facis.", "De cap manera."),
        other=("Sí però no la porta.", "Potser.", "Sí i encén els llums.", "Ara mateix."),
        restating="Sí, desbloqueja-la ara mateix.",
        also="Sí, i obre també el garatge.",
    ),
}  # fmt: skip
