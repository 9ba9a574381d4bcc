%BCJooF j_"HtF'Vm78dI,%ÜpÜ-V
oXf=Öám8-%çpUrç_SCm	gLuWèkR{ÇÑe`3ÖÅÇTt#Wd/2!V?-É4Pq;$6{LP}lsBQpã$
